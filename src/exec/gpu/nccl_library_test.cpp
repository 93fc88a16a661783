#include "exec/gpu/nccl_library.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

using namespace reshardctl::gpu;

namespace {

namespace fs = std::filesystem;

// An environment of our own for ncclCandidates.
struct FakeEnv {
  std::map<std::string, std::string> values;
  GetEnv get() const {
    return [this](const char* name) -> const char* {
      auto found = values.find(name);
      return found == values.end() ? nullptr : found->second.c_str();
    };
  }
};

void touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

// The position of `path` among the candidates, or -1.
long indexOf(const std::vector<NcclCandidate>& list, const std::string& path) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].path == path) return static_cast<long>(i);
  return -1;
}

std::string fake(const char* variant) { return std::string(RESHARDCTL_FAKE_NCCL_DIR) + "/" + variant; }

}  // namespace

TEST_CASE("nccl loader: RESHARDCTL_NCCL_LIB is the only candidate, as a file or a folder") {
  FakeEnv env;
  env.values["RESHARDCTL_NCCL_LIB"] = "/somewhere/libnccl.so.2";
  auto list = ncclCandidates(env.get());
  REQUIRE(list.size() == 1);
  CHECK(list[0].path == "/somewhere/libnccl.so.2");
  CHECK(list[0].from == "RESHARDCTL_NCCL_LIB");
  env.values["RESHARDCTL_NCCL_LIB"] = fake("2_27");
  list = ncclCandidates(env.get());
  REQUIRE(list.size() == 1);
  CHECK(list[0].path == fake("2_27") + "/libnccl.so.2");
}

TEST_CASE("nccl loader: the loader path, then the CUDA toolkit, then pip's nvidia/nccl/lib next to python3") {
  const fs::path root = fs::temp_directory_path() / ("reshardctl-nccl-search-" + std::to_string(::getpid()));
  fs::remove_all(root);
  touch(root / "cuda/lib64/libnccl.so.2");
  touch(root / "venv/bin/python3");
  touch(root / "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
  touch(root / "other/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2");  // no python3 there
  FakeEnv env;
  env.values["CUDA_HOME"] = (root / "cuda").string();
  env.values["PATH"] = (root / "venv/bin").string() + ":/nonexistent";
  const auto list = ncclCandidates(env.get());
  fs::remove_all(root);
  REQUIRE(!list.empty());
  CHECK(list[0].path == "libnccl.so.2");
  CHECK(list[0].from == "the loader path");
  const long toolkit = indexOf(list, (root / "cuda/lib64/libnccl.so.2").string());
  const long pip = indexOf(list, (root / "venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2").string());
  CHECK(toolkit == 1);  // $CUDA_HOME before /usr/local/cuda
  CHECK(list[static_cast<size_t>(toolkit)].from == "the CUDA toolkit");
  REQUIRE(pip > toolkit);
  CHECK(list[static_cast<size_t>(pip)].from.find("pip") == 0);
  CHECK(indexOf(list, (root / "other/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2").string()) == -1);
}

TEST_CASE("nccl loader: features come from the loaded library's version, not from nccl.h") {
  std::string error;
  const auto old = openNccl({fake("2_27") + "/libnccl.so.2", "test"}, &error);
  REQUIRE_MESSAGE(old, error);
  CHECK(old->version == 22705);
  CHECK(reinterpret_cast<void*>(old->alltoAll) == nullptr);
  CHECK(old->path.find("fake-nccl/2_27/libnccl.so.2") != std::string::npos);
  const NcclFeatures features = ncclFeatures(*old);
  CHECK_FALSE(features.alltoAll);  // send/recv pairs instead
  CHECK_FALSE(features.multiRankGpu);
  CHECK(features.maxRanksPerGpu == 1);
  CHECK(old->errorText(ncclInternalError) == "'fake NCCL error': fake NCCL");

  NcclApi table;  // a table of another version, as a test installs
  table.alltoAll = old->allGather;
  table.version = NCCL_VERSION(2, 28, 9);
  CHECK(ncclFeatures(table).alltoAll);
  CHECK_FALSE(ncclFeatures(table).multiRankGpu);
  table.version = NCCL_VERSION(2, 30, 3);
  CHECK(ncclFeatures(table).multiRankGpu);
  CHECK(ncclFeatures(table).maxRanksPerGpu == 2);
  table.alltoAll = nullptr;  // a 2.30 without the symbol: not called
  CHECK_FALSE(ncclFeatures(table).alltoAll);
}

TEST_CASE("nccl loader: a too old or incomplete NCCL, or none, is an error message") {
  std::string error;
  CHECK_FALSE(openNccl({fake("too_old") + "/libnccl.so.2", "test"}, &error));
  CHECK(error == "NCCL 2.15.5 is older than 2.18.0, the oldest reshardctl runs with");
  CHECK_FALSE(openNccl({fake("incomplete") + "/libnccl.so.2", "test"}, &error));
  CHECK(error == "NCCL 2.28.9 lacks ncclCommSplit");
  CHECK_FALSE(openNccl({"/nonexistent/libnccl.so.2", "test"}, &error));
  CHECK(error.find("/nonexistent/libnccl.so.2") != std::string::npos);
}

TEST_CASE("nccl loader: the toolkit's NCCL, where there is one, loads without a GPU") {
  const std::string toolkit = "/usr/local/cuda/lib64/libnccl.so.2";
  if (!fs::exists(toolkit)) return;
  std::string error;
  const auto api = openNccl({toolkit, "test"}, &error);
  REQUIRE_MESSAGE(api, error);
  CHECK(api->version >= kMinNcclVersion);
  CHECK(ncclFeatures(*api).alltoAll == (api->version >= NCCL_VERSION(2, 28, 0)));
}

TEST_CASE("nccl loader: shared GPUs get a bounded NCCL_MAX_CTAS") {
  CHECK(sharedGpuMaxCtas(132, 2) == 16);  // H200: 2 x 16 CTAs leave 100 SMs free
  CHECK(sharedGpuMaxCtas(132, 1) == 32);
  CHECK(sharedGpuMaxCtas(8, 4) == 1);
  CHECK(sharedGpuMaxCtas(0, 0) == 1);
  CHECK(ncclVersionText(22809) == "2.28.9");
  CHECK(ncclVersionText(23003) == "2.30.3");
}
