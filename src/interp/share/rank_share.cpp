#include "interp/share/rank_share.h"

#include <charconv>
#include <climits>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "exec/multiprocess/process_group.h"
#include "exec/piece.h"

namespace reshardctl {

namespace {

constexpr int kMaxListDepth = 8;

double next(const std::vector<double>& in, size_t& at) {
  if (at >= in.size()) throw ExecutionError("a piece from another process ends early");
  return in[at++];
}

// A count or extent: a whole number in [0, limit].
int64_t wholeNumber(const std::vector<double>& in, size_t& at, double limit) {
  const double value = next(in, at);
  if (!(value >= 0 && value <= limit) || std::floor(value) != value)
    throw ExecutionError(fmt::format("a piece from another process holds {} where a count is due", value));
  return static_cast<int64_t>(value);
}

void packTensor(const Tensor& tensor, std::vector<double>& out) {
  out.push_back(tensor.isList ? 1 : 0);
  if (tensor.isList) {
    out.push_back(static_cast<double>(tensor.items.size()));
    for (const Tensor& item : tensor.items) packTensor(item, out);
    return;
  }
  out.push_back(static_cast<double>(tensor.dtype));
  out.push_back(static_cast<double>(tensor.shape.size()));
  for (const int64_t extent : tensor.shape) out.push_back(static_cast<double>(extent));
  out.push_back(static_cast<double>(tensor.data.size()));
  out.insert(out.end(), tensor.data.begin(), tensor.data.end());
}

Tensor unpackTensor(const std::vector<double>& in, size_t& at, int depth) {
  const double remaining = static_cast<double>(in.size() - at);
  if (wholeNumber(in, at, 1) == 1) {
    if (depth >= kMaxListDepth) throw ExecutionError("a piece from another process nests lists too deep");
    std::vector<Tensor> items(static_cast<size_t>(wholeNumber(in, at, remaining)));
    for (Tensor& item : items) item = unpackTensor(in, at, depth + 1);
    return Tensor::list(std::move(items));
  }
  Tensor tensor;
  tensor.dtype = static_cast<DType>(wholeNumber(in, at, static_cast<double>(DType::Index)));
  tensor.shape.resize(static_cast<size_t>(wholeNumber(in, at, remaining)));
  for (int64_t& extent : tensor.shape) extent = wholeNumber(in, at, 9.0e15);
  const auto count = static_cast<size_t>(wholeNumber(in, at, static_cast<double>(in.size() - at)));
  tensor.data.assign(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + count));
  at += count;
  return tensor;
}

// "rank\tkind\tmessage", as agree sends a failure.
std::optional<Divergence> parseFailure(const Operation& op, std::string_view text) {
  const size_t tab = text.find('\t');
  const size_t second = tab == std::string_view::npos ? tab : text.find('\t', tab + 1);
  if (second == std::string_view::npos) return std::nullopt;
  int64_t rank = 0;
  std::from_chars(text.data(), text.data() + tab, rank);
  Divergence d;
  d.op = &op;
  d.kind = std::string(text.substr(tab + 1, second - tab - 1));
  d.message = std::string(text.substr(second + 1));
  d.ranks = {rank};
  return d;
}

}  // namespace

void packPiece(const std::optional<Tensor>& piece, std::vector<double>& out) {
  out.push_back(piece ? 1 : 0);
  if (piece) packTensor(*piece, out);
}

std::optional<Tensor> unpackPiece(const std::vector<double>& in, size_t& at) {
  if (wholeNumber(in, at, 1) == 0) return std::nullopt;
  return unpackTensor(in, at, 0);
}

RankShare::RankShare(ProcessGroup& group)
    : group_(group), processes_(static_cast<size_t>(group.size())), self_(static_cast<size_t>(group.rank())) {}

std::optional<Divergence> RankShare::agree(const Operation& op, std::optional<Divergence> mine) {
  const std::string text =
      mine ? fmt::format("{}\t{}\t{}", mine->ranks.empty() ? 0 : mine->ranks.front(), mine->kind, mine->message) : "";
  std::optional<Divergence> first;
  for (const std::string& found : group_.allGather(text))
    if (std::optional<Divergence> d = parseFailure(op, found); d && (!first || d->ranks < first->ranks))
      first = std::move(d);
  return first;
}

void RankShare::exchange(const std::vector<size_t>& ranks, const std::vector<ValueState*>& results) {
  std::vector<double> mine;
  for (const size_t r : ranks)
    if (owns(r))
      for (const ValueState* state : results) packPiece(state->ranks[r], mine);
  // Sizes first, so that every process knows how much each sends; one too
  // large for an MPI call (-1) stops every process alike.
  const std::vector<int> sizes =
      group_.allGather(mine.size() > static_cast<size_t>(INT_MAX) ? -1 : static_cast<int>(mine.size()));
  for (size_t process = 0; process < sizes.size(); ++process)
    if (sizes[process] < 0)
      throw ExecutionError(fmt::format("process {}'s pieces of one op exceed what one MPI call moves", process));
  const std::vector<double> all = group_.allGatherValues(mine, std::vector<int64_t>(sizes.begin(), sizes.end()));
  size_t at = 0;
  for (size_t process = 0; process < processes_; ++process)
    for (const size_t r : ranks)
      if (r % processes_ == process)
        for (ValueState* state : results) {
          std::optional<Tensor> piece = unpackPiece(all, at);
          if (process != self_) state->ranks[r] = std::move(piece);
        }
}

}  // namespace reshardctl
