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

void packTensor(const Tensor& tensor, std::vector<double>& out, bool elements) {
  out.push_back(tensor.isList ? 1 : 0);
  if (tensor.isList) {
    out.push_back(static_cast<double>(tensor.items.size()));
    for (const Tensor& item : tensor.items) packTensor(item, out, elements);
    return;
  }
  out.push_back(static_cast<double>(tensor.dtype));
  out.push_back(static_cast<double>(tensor.shape.size()));
  for (const int64_t extent : tensor.shape) out.push_back(static_cast<double>(extent));
  out.push_back(elements ? static_cast<double>(tensor.data.size()) : 0);
  if (elements) out.insert(out.end(), tensor.data.begin(), tensor.data.end());
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
  const auto count = static_cast<size_t>(wholeNumber(in, at, 9.0e15));
  if (count > in.size() - at) throw ExecutionError("a piece from another process ends early");
  tensor.data.assign(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + count));
  at += count;
  return tensor;
}

void putText(std::string& out, std::string_view text) {
  out += fmt::format("{}:", text.size());
  out += text;
}

template <typename Number>
void putNumber(std::string& out, Number number) {
  out += fmt::format("{};", number);
}

// Reads what putText and putNumber wrote.
class DivergenceReader {
 public:
  explicit DivergenceReader(std::string_view text) : text_(text) {}

  std::string text() {
    const auto length = number<size_t>(':');
    if (length > text_.size() - at_) malformed();
    std::string value(text_.substr(at_, length));
    at_ += length;
    return value;
  }

  template <typename Number>
  Number number(char end = ';') {
    const size_t stop = text_.find(end, at_);
    if (stop == std::string_view::npos) malformed();
    Number value{};
    const auto [past, ec] = std::from_chars(text_.data() + at_, text_.data() + stop, value);
    if (ec != std::errc() || past != text_.data() + stop) malformed();
    at_ = stop + 1;
    return value;
  }

  bool done() const { return at_ == text_.size(); }

 private:
  [[noreturn]] static void malformed() { throw ExecutionError("a divergence from another process is malformed"); }
  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

void packPiece(const std::optional<Tensor>& piece, std::vector<double>& out, bool elements) {
  out.push_back(piece ? 1 : 0);
  if (piece) packTensor(*piece, out, elements);
}

std::optional<Tensor> unpackPiece(const std::vector<double>& in, size_t& at) {
  if (wholeNumber(in, at, 1) == 0) return std::nullopt;
  return unpackTensor(in, at, 0);
}

Tensor stubOf(const Tensor& piece) {
  Tensor stub;
  stub.shape = piece.shape;
  stub.dtype = piece.dtype;
  stub.isList = piece.isList;
  for (const Tensor& item : piece.items) stub.items.push_back(stubOf(item));
  return stub;
}

std::string encodeDivergence(const Divergence& d) {
  std::string out;
  putText(out, d.kind);
  putText(out, d.message);
  putText(out, d.value);
  putNumber(out, d.result ? static_cast<int64_t>(*d.result) : int64_t{-1});
  putNumber(out, d.ranks.size());
  for (const int64_t rank : d.ranks) putNumber(out, rank);
  putNumber(out, d.maxAbsDiff);
  putNumber(out, d.maxRelErr);
  putNumber(out, d.index.size());
  for (const int64_t at : d.index) putNumber(out, at);
  return out;
}

Divergence decodeDivergence(const Operation* op, std::string_view text) {
  DivergenceReader in(text);
  Divergence d;
  d.op = op;
  d.kind = in.text();
  d.message = in.text();
  d.value = in.text();
  if (const auto result = in.number<int64_t>(); result >= 0) d.result = static_cast<size_t>(result);
  d.ranks.resize(std::min(in.number<size_t>(), text.size()));
  for (int64_t& rank : d.ranks) rank = in.number<int64_t>();
  d.maxAbsDiff = in.number<double>();
  d.maxRelErr = in.number<double>();
  d.index.resize(std::min(in.number<size_t>(), text.size()));
  for (int64_t& at : d.index) at = in.number<int64_t>();
  if (!in.done()) throw ExecutionError("a divergence from another process is malformed");
  return d;
}

RankShare::RankShare(ProcessGroup& group, size_t worldSize)
    : group_(group),
      processes_(static_cast<size_t>(group.size())),
      self_(static_cast<size_t>(group.rank())),
      worldSize_(std::max<size_t>(worldSize, 1)) {}

std::optional<Divergence> RankShare::agree(const Operation& op, std::optional<Divergence> mine) {
  std::optional<Divergence> first;
  for (const std::string& found : group_.allGather(mine ? encodeDivergence(*mine) : std::string()))
    if (!found.empty())
      if (Divergence d = decodeDivergence(&op, found); !first || d.ranks < first->ranks) first = std::move(d);
  return first;
}

namespace {

// Every process's `mine`, concatenated in process order: sizes first, so that
// every process knows how much each sends; one too large for an MPI call (-1)
// stops every process alike.
std::vector<double> gatherStreams(ProcessGroup& group, const std::vector<double>& mine) {
  const std::vector<int> sizes =
      group.allGather(mine.size() > static_cast<size_t>(INT_MAX) ? -1 : static_cast<int>(mine.size()));
  for (size_t process = 0; process < sizes.size(); ++process)
    if (sizes[process] < 0)
      throw ExecutionError(fmt::format("process {}'s pieces of one op exceed what one MPI call moves", process));
  return group.allGatherValues(mine, std::vector<int64_t>(sizes.begin(), sizes.end()));
}

uint64_t elementBytes(const Tensor& piece) {
  uint64_t bytes = piece.data.size() * sizeof(double);
  for (const Tensor& item : piece.items) bytes += elementBytes(item);
  return bytes;
}

}  // namespace

void RankShare::exchangeShapes(const std::vector<size_t>& ranks, const std::vector<ValueState*>& results) {
  std::vector<double> mine;
  for (const size_t r : ranks)
    if (owns(r))
      for (const ValueState* state : results) packPiece(state->ranks[r], mine, false);
  const std::vector<double> all = gatherStreams(group_, mine);
  size_t at = 0;
  for (size_t process = 0; process < processes_; ++process)
    for (const size_t r : ranks)
      if (ownerOf(r) == process)
        for (ValueState* state : results) {
          std::optional<Tensor> stub = unpackPiece(all, at);
          if (process != self_) state->ranks[r] = std::move(stub);
        }
}

std::optional<Divergence> RankShare::check(const Operation& op, const std::vector<size_t>& order,
                                           const ValueState& state,
                                           const std::function<std::optional<Divergence>(const RankPieces&)>& verify) {
  const size_t checker = checks_++ % processes_;
  std::string verdict;
  if (self_ == checker) {
    size_t next = 0;  // the first entry of `order` not read yet
    std::optional<Tensor> received;
    auto receiveNext = [&] {
      const std::vector<double> stream = group_.receive(static_cast<int>(ownerOf(order[next++])));
      size_t at = 0;
      received = unpackPiece(stream, at);
      if (received) receivedBytes_ += elementBytes(*received);
    };
    const RankPieces pieces = [&](size_t r) -> const Tensor* {
      if (owns(r)) return state.ranks[r] ? &*state.ranks[r] : nullptr;
      while (next < order.size() && order[next] != r)
        if (owns(order[next])) ++next;
        else receiveNext();  // a piece the check passed over
      if (next == order.size()) throw ExecutionError(fmt::format("a check read rank {} out of order", r));
      receiveNext();
      return received ? &*received : nullptr;
    };
    std::optional<Divergence> found = verify(pieces);
    received.reset();
    for (; next < order.size(); ++next)  // what the others sent after the check stopped
      if (!owns(order[next])) group_.receive(static_cast<int>(ownerOf(order[next])));
    if (found) verdict = encodeDivergence(*found);
  } else {
    for (const size_t r : order)
      if (owns(r)) {
        std::vector<double> stream;
        packPiece(state.ranks[r], stream);
        group_.send(stream, static_cast<int>(checker));
      }
  }
  const std::string shared = group_.allGather(verdict)[checker];
  if (shared.empty()) return std::nullopt;
  return decodeDivergence(&op, shared);
}

std::vector<double> RankShare::gatherFigure(double figure) {
  return group_.allGatherValues({figure}, std::vector<int64_t>(processes_, 1));
}

}  // namespace reshardctl
