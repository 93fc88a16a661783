#include "exec/gpu/nccl_library.h"

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string_view>

#include <fmt/format.h>

namespace reshardctl::gpu {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSoname = "libnccl.so.2";

bool isFile(const std::string& path) {
  std::error_code ignored;
  return fs::is_regular_file(path, ignored);  // follows links, as dlopen does
}

std::vector<std::string> globPaths(const std::string& pattern) {
  std::vector<std::string> paths;
  glob_t found{};
  if (glob(pattern.c_str(), 0, nullptr, &found) == 0)
    for (size_t i = 0; i < found.gl_pathc; ++i) paths.emplace_back(found.gl_pathv[i]);
  globfree(&found);
  return paths;  // glob sorts
}

std::vector<std::string> splitPath(std::string_view list) {
  std::vector<std::string> parts;
  while (!list.empty()) {
    const size_t colon = list.find(':');
    if (colon != 0) parts.emplace_back(list.substr(0, colon));
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return parts;
}

// Prefixes whose lib/python3*/{site,dist}-packages may hold the pip wheel: that
// of every python3 on PATH (the folder above its bin/, unresolved, so a venv
// counts as itself, and resolved, for the interpreter it links to), then the
// usual places.
std::vector<std::string> pythonPrefixes(const GetEnv& getenv) {
  std::vector<std::string> prefixes;
  const char* path = getenv("PATH");
  // Under `env -i` there is no PATH: the shell's default.
  for (const std::string& dir : splitPath(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin")) {
    const fs::path python = fs::path(dir) / "python3";
    std::error_code error;
    if (!fs::exists(python, error)) continue;
    prefixes.push_back(fs::path(dir).parent_path().string());
    const fs::path real = fs::canonical(python, error);
    if (!error) prefixes.push_back(real.parent_path().parent_path().string());
  }
  for (const char* name : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* value = getenv(name); value != nullptr && *value != '\0') prefixes.emplace_back(value);
  if (const char* home = getenv("HOME"); home != nullptr && *home != '\0') prefixes.push_back(std::string(home) + "/.local");
  for (const char* usual : {"/usr/local", "/usr"}) prefixes.emplace_back(usual);
  for (const char* pattern : {"/opt/*", "/opt/*/.venv", "/opt/*/venv", "/opt/conda/envs/*"})
    for (std::string& found : globPaths(pattern)) prefixes.push_back(std::move(found));
  return prefixes;
}

// Adds `path` unless the same file is listed already.
void addFile(std::vector<NcclCandidate>& list, std::set<std::string>& seen, const std::string& path,
             const std::string& from) {
  if (!isFile(path)) return;
  std::error_code error;
  const fs::path real = fs::canonical(path, error);
  if (!seen.insert(error ? path : real.string()).second) return;
  list.push_back({path, from});
}

template <typename Function>
bool resolve(void* handle, const char* name, Function*& slot, std::string* missing) {
  slot = reinterpret_cast<Function*>(dlsym(handle, name));
  if (slot == nullptr && missing != nullptr) *missing += (missing->empty() ? "" : ", ") + std::string(name);
  return slot != nullptr;
}

}  // namespace

std::string NcclApi::errorText(ncclResult_t status, ncclComm_t comm) const {
  const char* name = getErrorString != nullptr ? getErrorString(status) : nullptr;
  std::string text = name != nullptr ? fmt::format("'{}'", name) : fmt::format("error {}", static_cast<int>(status));
  const char* detail = getLastError != nullptr ? getLastError(comm) : nullptr;
  if (detail != nullptr && *detail != '\0') text += fmt::format(": {}", detail);
  return text;
}

NcclFeatures ncclFeatures(const NcclApi& api) {
  NcclFeatures features;
  features.alltoAll = api.version >= NCCL_VERSION(2, 28, 0) && api.alltoAll != nullptr;
  features.multiRankGpu = api.version >= NCCL_VERSION(2, 30, 0);
  features.maxRanksPerGpu = features.multiRankGpu ? 2 : 1;
  return features;
}

int sharedGpuMaxCtas(int sms, int ranksPerGpu) {
  return std::clamp(sms / (4 * std::max(ranksPerGpu, 1)), 1, 32);
}

std::string ncclVersionText(int code) {
  return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
}

std::vector<NcclCandidate> ncclCandidates(const GetEnv& getenv) {
  if (const char* chosen = getenv("RESHARDCTL_NCCL_LIB"); chosen != nullptr && *chosen != '\0') {
    std::error_code error;
    std::string path = chosen;
    if (fs::is_directory(path, error)) path = (fs::path(path) / kSoname).string();
    return {{path, "RESHARDCTL_NCCL_LIB"}};
  }
  std::vector<NcclCandidate> list{{kSoname, "the loader path"}};
  std::set<std::string> seen;
  std::vector<std::string> roots;
  for (const char* name : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* value = getenv(name); value != nullptr && *value != '\0') roots.emplace_back(value);
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots)
    for (const char* lib : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"})
      addFile(list, seen, fmt::format("{}/{}/{}", root, lib, kSoname), "the CUDA toolkit");
  for (const std::string& prefix : pythonPrefixes(getenv))
    for (const std::string& packages : globPaths(prefix + "/lib*/python3*/*-packages"))
      addFile(list, seen, fmt::format("{}/nvidia/nccl/lib/{}", packages, kSoname),
              fmt::format("pip nvidia-nccl ({})", prefix));
  return list;
}

std::optional<NcclApi> openNccl(const NcclCandidate& candidate, std::string* error) {
  void* handle = dlopen(candidate.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = why != nullptr ? why : "dlopen failed";
    return std::nullopt;
  }
  NcclApi api;
  std::string missing;
  if (resolve(handle, "ncclGetVersion", api.getVersion, &missing) && api.getVersion(&api.version) != ncclSuccess)
    api.version = 0;
  resolve(handle, "ncclGetErrorString", api.getErrorString, &missing);
  resolve(handle, "ncclGetLastError", api.getLastError, &missing);
  resolve(handle, "ncclGetUniqueId", api.getUniqueId, &missing);
  resolve(handle, "ncclCommInitAll", api.commInitAll, &missing);
  resolve(handle, "ncclCommInitRank", api.commInitRank, &missing);
  resolve(handle, "ncclCommSplit", api.commSplit, &missing);
  resolve(handle, "ncclCommDestroy", api.commDestroy, &missing);
  resolve(handle, "ncclCommAbort", api.commAbort, &missing);
  resolve(handle, "ncclCommGetAsyncError", api.commGetAsyncError, &missing);
  resolve(handle, "ncclGroupStart", api.groupStart, &missing);
  resolve(handle, "ncclGroupEnd", api.groupEnd, &missing);
  resolve(handle, "ncclAllReduce", api.allReduce, &missing);
  resolve(handle, "ncclReduceScatter", api.reduceScatter, &missing);
  resolve(handle, "ncclAllGather", api.allGather, &missing);
  resolve(handle, "ncclSend", api.send, &missing);
  resolve(handle, "ncclRecv", api.recv, &missing);
  resolve(handle, "ncclAlltoAll", api.alltoAll, nullptr);  // optional
  std::string problem;
  if (api.version < kMinNcclVersion)
    problem = api.version == 0 ? "ncclGetVersion is missing or failed"
                               : fmt::format("NCCL {} is older than {}, the oldest reshardctl runs with",
                                             ncclVersionText(api.version), ncclVersionText(kMinNcclVersion));
  else if (!missing.empty())
    problem = fmt::format("NCCL {} lacks {}", ncclVersionText(api.version), missing);
  if (!problem.empty()) {
    dlclose(handle);
    *error = problem;
    return std::nullopt;
  }
  // The file the loader really opened (for the bare soname, wherever it found it).
  Dl_info info{};
  api.path = dladdr(reinterpret_cast<void*>(api.getVersion), &info) != 0 && info.dli_fname != nullptr
                 ? info.dli_fname
                 : candidate.path;
  return api;
}

const NcclApi* loadNccl(std::string* error) {
  static std::once_flag once;
  static std::optional<NcclApi> loaded;
  static std::string failure;
  std::call_once(once, [] {
    std::string tried;
    for (const NcclCandidate& candidate : ncclCandidates(std::getenv)) {
      std::string why;
      loaded = openNccl(candidate, &why);
      if (loaded) return;
      tried += fmt::format("\n  {} (from {}): {}", candidate.path, candidate.from, why);
    }
    failure = fmt::format("cannot load NCCL ({}); tried:{}\n  install NCCL {} or later (the CUDA toolkit's, or "
                          "pip's nvidia-nccl-cu13) or set RESHARDCTL_NCCL_LIB to its {}",
                          kSoname, tried, ncclVersionText(kMinNcclVersion), kSoname);
  });
  if (!loaded && error != nullptr) *error = failure;
  return loaded ? &*loaded : nullptr;
}

std::vector<NcclProbe> probeNcclCandidates() {
  std::vector<NcclProbe> probes;
  for (const NcclCandidate& candidate : ncclCandidates(std::getenv)) {
    NcclProbe probe{candidate, 0, {}};
    // Opened on its own and closed again: a probe never holds a library the
    // backend may load later (loadNccl keeps its own handle open).
    void* handle = dlopen(candidate.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      probe.error = why != nullptr ? why : "dlopen failed";
    } else {
      ncclResult_t (*getVersion)(int*) = nullptr;
      if (!resolve(handle, "ncclGetVersion", getVersion, nullptr) || getVersion(&probe.version) != ncclSuccess)
        probe.error = "no ncclGetVersion";
      Dl_info info{};
      if (getVersion != nullptr && dladdr(reinterpret_cast<void*>(getVersion), &info) != 0 && info.dli_fname != nullptr)
        probe.candidate.path = info.dli_fname;
      dlclose(handle);
    }
    probes.push_back(std::move(probe));
  }
  return probes;
}

}  // namespace reshardctl::gpu
