#include "exec/multiprocess/multi_process.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace reshardctl {

namespace {

std::optional<int> number(const char* text) {
  if (text == nullptr) return std::nullopt;
  const std::string_view digits(text);
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<MpiLaunch> detectMpiLaunch(const EnvLookup& lookup) {
  struct Launcher {
    const char* size;
    const char* rank;
  };
  // PMIx exports no world size; MPI_Comm_size gives it once MPI is up.
  static constexpr Launcher kLaunchers[] = {
      {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}, {nullptr, "PMIX_RANK"}};
  for (const Launcher& launcher : kLaunchers) {
    const char* size = launcher.size != nullptr ? lookup(launcher.size) : nullptr;
    const char* rank = lookup(launcher.rank);
    if (size == nullptr && (launcher.size != nullptr || rank == nullptr)) continue;
    return MpiLaunch{launcher.size != nullptr ? launcher.size : launcher.rank, number(size), number(rank)};
  }
  return std::nullopt;
}

std::string processCountProblem(const std::vector<int64_t>& ranks, int processes) {
  if (std::ssize(ranks) == processes) return {};
  return fmt::format("the plans use {} rank(s) (process ids {}), but {} MPI process(es) were started: "
                     "start one process per rank (mpirun -np {})",
                     ranks.size(), fmt::join(ranks, ","), processes, ranks.size());
}

int64_t rankOfProcess(const std::vector<int64_t>& ranks, int process) {
  return ranks.at(static_cast<size_t>(process));
}

AgreedStatus agreeOnStatus(const std::vector<int>& statuses) {
  AgreedStatus agreed;
  if (statuses.empty()) return agreed;
  agreed.status = *std::max_element(statuses.begin(), statuses.end());
  if (statuses.front() == 0 && agreed.status != 0)
    agreed.printer = static_cast<int>(std::find_if(statuses.begin(), statuses.end(), [](int s) { return s != 0; }) -
                                      statuses.begin());
  return agreed;
}

std::string firstProblem(const std::vector<std::string>& problems) {
  for (size_t process = 0; process < problems.size(); ++process) {
    if (problems[process].empty()) continue;
    return process == 0 ? problems[process] : fmt::format("process {}: {}", process, problems[process]);
  }
  return {};
}

std::string positionedProblem(int64_t position, const std::string& message) {
  return fmt::format("{}\t{}", position, message);
}

std::string lowestPositionedProblem(const std::vector<std::string>& problems) {
  std::string lowest;
  int64_t lowestAt = -1;
  for (const std::string& text : problems) {
    const size_t tab = text.find('\t');
    if (tab == std::string::npos) continue;
    int64_t at = 0;
    std::from_chars(text.data(), text.data() + tab, at);
    if (lowestAt < 0 || at < lowestAt) {
      lowestAt = at;
      lowest = text.substr(tab + 1);
    }
  }
  return lowest;
}

}  // namespace reshardctl
