// A fake libnccl.so.2 for the run-time loader's tests
// (src/exec/gpu/nccl_library_test.cpp): the entry points reshardctl resolves,
// with a chosen version and a chosen gap. Built four times by cmake/gpu.cmake:
//   FAKE_NCCL_2_27       NCCL 2.27.5: everything but ncclAlltoAll (new in 2.28)
//   FAKE_NCCL_2_30       NCCL 2.30.3: everything (for gpu-check.sh's test)
//   FAKE_NCCL_TOO_OLD    NCCL 2.15.5: older than reshardctl's minimum (2.18)
//   FAKE_NCCL_INCOMPLETE NCCL 2.28.9 without ncclCommSplit
// Every call but ncclGetVersion fails (ncclInternalError): no test may get as
// far as using one.
namespace {
constexpr int kInternalError = 3;
}

#if defined(FAKE_NCCL_2_27)
#define FAKE_VERSION 22705
#elif defined(FAKE_NCCL_2_30)
#define FAKE_VERSION 23003
#elif defined(FAKE_NCCL_TOO_OLD)
#define FAKE_VERSION 21505
#else
#define FAKE_VERSION 22809
#endif

#define FAKE(name) \
  extern "C" int name() { return kInternalError; }

extern "C" int ncclGetVersion(int* version) {
  *version = FAKE_VERSION;
  return 0;
}
extern "C" const char* ncclGetErrorString(int) { return "fake NCCL error"; }
extern "C" const char* ncclGetLastError(void*) { return "fake NCCL"; }
FAKE(ncclGetUniqueId)
FAKE(ncclCommInitAll)
FAKE(ncclCommInitRank)
#if !defined(FAKE_NCCL_INCOMPLETE)
FAKE(ncclCommSplit)
#endif
FAKE(ncclCommDestroy)
FAKE(ncclCommAbort)
FAKE(ncclCommGetAsyncError)
FAKE(ncclGroupStart)
FAKE(ncclGroupEnd)
FAKE(ncclAllReduce)
FAKE(ncclReduceScatter)
FAKE(ncclAllGather)
FAKE(ncclSend)
FAKE(ncclRecv)
#if !defined(FAKE_NCCL_2_27)
FAKE(ncclAlltoAll)
#endif
