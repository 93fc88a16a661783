#include "exec/multiprocess/piece_exchange.h"

#include <numeric>

#include <fmt/format.h>

namespace reshardctl {

std::vector<int64_t> exchangeCounts(const std::vector<int64_t>& ranksByProcess, const std::map<int64_t, Box>& boxes) {
  std::vector<int64_t> counts;
  counts.reserve(ranksByProcess.size());
  for (const int64_t id : ranksByProcess) {
    auto found = boxes.find(id);
    counts.push_back(found == boxes.end() ? 0 : found->second.volume());
  }
  return counts;
}

std::map<int64_t, Piece> assemblePieces(const std::vector<int64_t>& ranksByProcess,
                                        const std::map<int64_t, Box>& boxes, const std::vector<double>& values) {
  const std::vector<int64_t> counts = exchangeCounts(ranksByProcess, boxes);
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  if (total != std::ssize(values))
    throw ExecutionError(fmt::format("the processes sent {} values, but their pieces hold {}", values.size(), total));
  std::map<int64_t, Piece> pieces;
  auto next = values.begin();
  for (size_t process = 0; process < ranksByProcess.size(); ++process) {
    const int64_t id = ranksByProcess[process];
    auto found = boxes.find(id);
    if (found == boxes.end()) continue;
    const auto end = next + static_cast<std::ptrdiff_t>(counts[process]);
    pieces[id] = Piece{found->second, std::vector<double>(next, end)};
    next = end;
  }
  return pieces;
}

}  // namespace reshardctl
