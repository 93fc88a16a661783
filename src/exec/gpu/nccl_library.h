// NCCL, loaded at run time. reshardctl is built against nccl.h alone (types,
// enums, NCCL_VERSION) and opens libnccl.so.2 with dlopen when the nccl backend
// starts, so one binary runs with whichever NCCL the machine has: the CUDA
// toolkit's, or the pip wheel (nvidia-nccl-cu13) that a Python stack brings, which
// ships only libnccl.so.2. A missing or too old NCCL is an error message (the
// backend is unavailable, exit 2), never a symbol-lookup death at start.
//
// Every NCCL call of the backend goes through an NcclApi table of function
// pointers; tests install tables of fakes (failing or hanging calls) to drive
// the backend's error paths without NCCL or a GPU. Features are chosen from the
// loaded library's ncclGetVersion(), not from the header compiled against.
#pragma once

#include <nccl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace reshardctl::gpu {

// ncclCommSplit (mesh groups in the multi-process mode) arrived in 2.18.
inline constexpr int kMinNcclVersion = 21800;

struct NcclApi {
  int version = 0;   // ncclGetVersion(): 22809 for 2.28.9
  std::string path;  // the file loaded ("" for a table made in a test)
  ncclResult_t (*getVersion)(int*) = nullptr;
  const char* (*getErrorString)(ncclResult_t) = nullptr;
  const char* (*getLastError)(ncclComm_t) = nullptr;
  ncclResult_t (*getUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*commInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*commInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*commSplit)(ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*) = nullptr;
  ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*commAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t*) = nullptr;
  ncclResult_t (*groupStart)() = nullptr;
  ncclResult_t (*groupEnd)() = nullptr;
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*reduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*allGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = nullptr;
  // Optional: NCCL 2.28 and later (nullptr before).
  ncclResult_t (*alltoAll)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;

  // NCCL's name of `status`, and its last error text (may be empty).
  std::string errorText(ncclResult_t status, ncclComm_t comm = nullptr) const;
};

// What the loaded NCCL can do, from its version (and, for ncclAlltoAll, the
// symbol being there).
struct NcclFeatures {
  bool alltoAll = false;      // ncclAlltoAll: 2.28.0 and later; else send/recv pairs in a group
  bool multiRankGpu = false;  // several ranks of one communicator on one GPU:
                              // NCCL_MULTI_RANK_GPU_ENABLE=1, 2.30 and later
  int maxRanksPerGpu = 1;     // NCCL 2.30 documents about 2 at default settings
};
NcclFeatures ncclFeatures(const NcclApi& api);

// NCCL_MAX_CTAS for `ranksPerGpu` ranks sharing a GPU of `sms` multiprocessors:
// every rank's channels resident at once with half the SMs left free (a rank
// whose kernel cannot be scheduled while the other's waits for it is NCCL's
// documented hang), between 1 and 32.
int sharedGpuMaxCtas(int sms, int ranksPerGpu);

std::string ncclVersionText(int code);  // 22809 -> "2.28.9"

// Where libnccl.so.2 may be, in the order tried.
struct NcclCandidate {
  std::string path;  // a file, or the bare soname for the loader's own search
  std::string from;  // why it is tried: "RESHARDCTL_NCCL_LIB", "the loader path", ...
};

// Reads the environment; `getenv` is a parameter so tests can give their own.
using GetEnv = std::function<const char*(const char*)>;

// RESHARDCTL_NCCL_LIB alone when set (a file, or a folder holding
// libnccl.so.2); else the loader path (LD_LIBRARY_PATH, the executable's
// RUNPATH $ORIGIN/../lib, the ld.so cache), the CUDA toolkit ($CUDA_HOME,
// $CUDA_PATH, /usr/local/cuda), and a pip `nvidia/nccl/lib` in the
// site-packages next to every python3 on PATH (and the usual prefixes: /usr,
// /usr/local, /opt/*, /opt/*/.venv, $VIRTUAL_ENV, $CONDA_PREFIX). Only files
// that exist are listed, except the loader path's bare name.
std::vector<NcclCandidate> ncclCandidates(const GetEnv& getenv);

// Opens one candidate and fills its table; nullopt and *error (cannot open, a
// required symbol missing, older than kMinNcclVersion) when it is not usable.
std::optional<NcclApi> openNccl(const NcclCandidate& candidate, std::string* error);

// The process's NCCL: the first candidate that opens and is usable, loaded once
// and kept (never dlclose'd: NCCL starts threads). nullptr and *error (every
// candidate tried, with why it was refused) when none is.
const NcclApi* loadNccl(std::string* error);

// The candidates, each opened on its own to read its version: for
// `gpu_selftest --nccl-list` (which NCCL would be used, and which newer ones
// RESHARDCTL_NCCL_LIB could pick).
struct NcclProbe {
  NcclCandidate candidate;
  int version = 0;    // 0: not usable
  std::string error;  // why not
};
std::vector<NcclProbe> probeNcclCandidates();

}  // namespace reshardctl::gpu
