#include "exec/reference_data.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reshard/mesh_coords.h"
#include "reshard/reduce_op.h"

namespace reshardctl {

namespace {

int64_t randomInt(std::mt19937_64& rng, int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

bool holdsNegatives(DType dtype) { return !isUnsigned(dtype); }

// The pieces of one value being split: every rank starts with the value; one
// random rank, the holder, fixes the result.
struct Split {
  DType dtype;
  double value;
  std::vector<double> parts;
  size_t holder;
  std::mt19937_64& rng;

  // Sets every part but the holder's; returns their sum or product.
  template <typename MakePart>
  double setOthers(MakePart makePart, bool multiply = false) {
    double combined = multiply ? 1.0 : 0.0;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i == holder) continue;
      parts[i] = makePart();
      combined = multiply ? combined * parts[i] : combined + parts[i];
    }
    return combined;
  }
  double small(int64_t low, int64_t high) { return static_cast<double>(randomInt(rng, low, high)); }
};

void splitSum(Split& split) {
  if (!holdsNegatives(split.dtype)) {  // non-negative addends of a non-negative value
    double rest = split.value;
    split.setOthers([&] {
      const double part = split.small(0, static_cast<int64_t>(std::min(rest, 3.0)));
      rest -= part;
      return part;
    });
    split.parts[split.holder] = rest;
    return;
  }
  split.parts[split.holder] = split.value - split.setOthers([&] { return split.small(-3, 3); });
}

void splitAvg(Split& split) {
  if (!holdsNegatives(split.dtype)) return;  // every rank holds the value
  const double offsets = split.setOthers([&] { return split.small(-2, 2); });
  for (size_t i = 0; i < split.parts.size(); ++i)
    if (i != split.holder) split.parts[i] += split.value;
  split.parts[split.holder] = split.value - offsets;
}

void splitProduct(Split& split) {
  static constexpr std::array<double, 4> kFloatFactors = {0.5, 1.0, 2.0, -1.0};
  double product = 1.0;
  if (!holdsNegatives(split.dtype)) {
    product = split.setOthers([] { return 1.0; }, true);
  } else if (isFloating(split.dtype) || isComplex(split.dtype)) {
    product = split.setOthers([&] { return kFloatFactors[static_cast<size_t>(split.small(0, 3))]; }, true);
  } else {
    product = split.setOthers([&] { return split.small(0, 1) == 0 ? -1.0 : 1.0; }, true);
  }
  split.parts[split.holder] = split.value / product;  // exact: the factors are powers of two or ±1
}

void splitLogical(Split& split, ReduceType type) {
  const bool result = split.value != 0.0;
  // ANY of a true value and ALL of a false one need one rank to decide; the
  // others are free. Otherwise every rank holds the result.
  const bool decided = type == ReduceType::Any ? result : !result;
  const double fixed = result ? 1.0 : 0.0;
  split.setOthers([&] { return decided ? split.small(0, 1) : fixed; });
  split.parts[split.holder] = fixed;
}

bool isLogical(ReduceType type) { return type == ReduceType::Any || type == ReduceType::All; }

// Pieces of a 0/1 value that are 0/1 themselves. On such values MAX is ANY,
// MIN and PRODUCT are ALL, SUM needs the holder alone to hold the value, and
// AVG needs every piece to hold it.
void splitIntoBits(Split& split, ReduceType type) {
  switch (type) {
    case ReduceType::Max:
    case ReduceType::Any: splitLogical(split, ReduceType::Any); return;
    case ReduceType::Min:
    case ReduceType::Product:
    case ReduceType::All: splitLogical(split, ReduceType::All); return;
    case ReduceType::Sum: split.parts[split.holder] = split.value - split.setOthers([] { return 0.0; }); return;
    case ReduceType::Avg: return;  // every piece keeps the value
  }
}

// k pieces that reduce to `value` under `type` (see makeSourcePieces); 0/1
// pieces of a 0/1 value with `bits`.
std::vector<double> splitValue(ReduceType type, DType dtype, double value, int64_t k, bool bits,
                               std::mt19937_64& rng) {
  const size_t holder = static_cast<size_t>(randomInt(rng, 0, k - 1));
  Split split{dtype, value, std::vector<double>(static_cast<size_t>(k), value), holder, rng};
  if (bits) {
    splitIntoBits(split, type);
    return split.parts;
  }
  switch (type) {
    case ReduceType::Sum: splitSum(split); break;
    case ReduceType::Avg: splitAvg(split); break;
    case ReduceType::Product: splitProduct(split); break;
    case ReduceType::Max:
      split.setOthers([&] { return std::max(value - split.small(0, 3), dtypeLowest(dtype)); });
      break;
    case ReduceType::Min:
      split.setOthers([&] { return std::min(value + split.small(0, 3), dtypeHighest(dtype)); });
      break;
    case ReduceType::Any:
    case ReduceType::All: splitLogical(split, type); break;
  }
  for (double& part : split.parts) part = roundToDType(part, dtype);
  return split.parts;
}

std::vector<size_t> partialMeshDims(const Layout& layout) {
  std::vector<size_t> dims;
  for (size_t dim = 0; dim < layout.placements.size(); ++dim)
    if (layout.placements[dim].isPartial()) dims.push_back(dim);
  return dims;
}

// The coordinates of a position along the partial mesh dims, lowest first.
std::vector<int64_t> partialKey(const MeshCoord& coord, const std::vector<size_t>& partialDims) {
  std::vector<int64_t> key;
  for (size_t dim : partialDims) key.push_back(coord[dim]);
  return key;
}

// Whether the pieces split over partial mesh dim `dim` must be 0/1: they are
// what the reductions over the lower partial dims make, and an ANY/ALL among
// those makes 0/1 (so the value split is 0/1 too, and so on up: the global
// value of such a layout is 0/1, see randomGlobalTensor's logicalValues).
bool bitPieces(const Layout& layout, size_t dim) {
  for (size_t lower = 0; lower < dim; ++lower)
    if (layout.placements[lower].isPartial() && isLogical(layout.placements[lower].reduce)) return true;
  return false;
}

}  // namespace

GlobalTensor randomGlobalTensor(const std::vector<int64_t>& shape, DType dtype, bool logicalValues,
                                std::mt19937_64& rng) {
  GlobalTensor global{dtype, Piece::filled(fullBox(shape), 0.0)};
  const bool zeroOrOne = logicalValues || dtype == DType::Bool;
  const int64_t low = zeroOrOne || !holdsNegatives(dtype) ? 0 : -5;
  const int64_t high = zeroOrOne ? 1 : holdsNegatives(dtype) ? 5 : 9;
  for (double& value : global.data.values) value = static_cast<double>(randomInt(rng, low, high));
  return global;
}

DistTensor makeSourcePieces(const GlobalTensor& global, const Layout& layout, std::mt19937_64& rng,
                            const KeptRanks& kept) {
  const std::vector<size_t> partialDims = partialMeshDims(layout);
  // Whole-tensor partial pieces per partial coordinate, split outermost first.
  std::map<std::vector<int64_t>, std::vector<double>> wholes{{{}, global.data.values}};
  for (auto dim = partialDims.rbegin(); dim != partialDims.rend(); ++dim) {
    const Placement& placement = layout.placements[*dim];
    const int64_t k = layout.mesh.shape[*dim];
    const bool bits = bitPieces(layout, *dim);
    std::map<std::vector<int64_t>, std::vector<double>> split;
    for (const auto& [key, values] : wholes) {
      std::vector<std::vector<double>> parts(static_cast<size_t>(k), std::vector<double>(values.size()));
      for (size_t i = 0; i < values.size(); ++i) {
        const std::vector<double> pieces = splitValue(placement.reduce, global.dtype, values[i], k, bits, rng);
        for (size_t c = 0; c < pieces.size(); ++c) parts[c][i] = pieces[c];
      }
      for (int64_t c = 0; c < k; ++c) {
        std::vector<int64_t> longer{c};  // keys list the lower dims first
        longer.insert(longer.end(), key.begin(), key.end());
        split[longer] = std::move(parts[static_cast<size_t>(c)]);
      }
    }
    wholes = std::move(split);
  }
  std::map<std::vector<int64_t>, Piece> wholePieces;  // made once: a mesh of many ranks reads each often
  for (auto& [key, values] : wholes) wholePieces[key] = Piece{global.data.box, std::move(values)};
  DistTensor tensor{global.shape(), global.dtype, layout, {}};
  for (int64_t position = 0; position < layout.mesh.size(); ++position) {
    const int64_t id = processIdAt(layout.mesh, position);
    if (kept && !kept(id)) continue;
    const MeshCoord coord = meshCoord(layout.mesh, position);
    tensor.pieces[id] =
        extractPiece(wholePieces.at(partialKey(coord, partialDims)), localBox(tensor.shape, layout, coord));
  }
  return tensor;
}

double valueDifference(double a, double b) {
  if (a == b) return 0.0;  // equal infinities too
  const double gap = std::fabs(a - b);
  return std::isnan(gap) ? INFINITY : gap;
}

namespace {

struct WholePartial {
  Piece values;
  Piece written;
};

// Pastes every rank's piece into the whole-tensor piece of its partial
// coordinates, checking boxes and that replicas agree.
std::map<std::vector<int64_t>, WholePartial> collectPieces(const DistTensor& tensor, const GlobalTensor& global,
                                                           PieceCheck& check) {
  const Layout& layout = tensor.layout;
  const std::vector<size_t> partialDims = partialMeshDims(layout);
  std::map<std::vector<int64_t>, WholePartial> wholes;
  for (int64_t position = 0; position < layout.mesh.size() && check.problem.empty(); ++position) {
    const int64_t id = processIdAt(layout.mesh, position);
    const MeshCoord coord = meshCoord(layout.mesh, position);
    const Box expected = localBox(tensor.shape, layout, coord);
    auto found = tensor.pieces.find(id);
    if (found == tensor.pieces.end()) {
      check.problem = fmt::format("process {} holds no piece", id);
      break;
    }
    if (!(found->second.box == expected)) {
      check.problem = fmt::format("process {} holds [{}..{}) instead of [{}..{})", id,
                                  fmt::join(found->second.box.begin, ","), fmt::join(found->second.box.end, ","),
                                  fmt::join(expected.begin, ","), fmt::join(expected.end, ","));
      break;
    }
    auto [entry, added] = wholes.try_emplace(partialKey(coord, partialDims));
    if (added) entry->second = {Piece::filled(global.data.box, 0.0), Piece::filled(global.data.box, 0.0)};
    WholePartial& whole = entry->second;
    forEachRow(expected, [&](const std::vector<int64_t>& start, size_t length) {
      const double* held = found->second.values.data() + found->second.offsetOf(start);
      const size_t at = whole.values.offsetOf(start);
      double* values = whole.values.values.data() + at;
      double* written = whole.written.values.data() + at;
      for (size_t i = 0; i < length; ++i) {
        if (written[i] != 0.0 && valueDifference(values[i], held[i]) != 0.0) {
          check.maxError = std::max(check.maxError, valueDifference(values[i], held[i]));
          if (check.problem.empty()) check.problem = fmt::format("process {} disagrees with a replica", id);
        }
        values[i] = held[i];
        written[i] = 1.0;
      }
    });
  }
  return wholes;
}

// Reduces the whole partial pieces over the partial mesh dims, lowest first.
std::vector<double> reduceWholes(std::map<std::vector<int64_t>, WholePartial> wholes, const DistTensor& tensor) {
  std::map<std::vector<int64_t>, std::vector<double>> values;
  for (auto& [key, whole] : wholes) values[key] = std::move(whole.values.values);
  std::vector<ReduceType> types;
  for (size_t dim : partialMeshDims(tensor.layout)) types.push_back(tensor.layout.placements[dim].reduce);
  return reducePartialWholes(std::move(values), types, tensor.dtype);
}

}  // namespace

PieceCheck checkDestinationPieces(const DistTensor& tensor, const GlobalTensor& global) {
  PieceCheck check;
  if (tensor.shape != global.shape()) {
    check.problem = "the tensor's shape differs from the global tensor's";
    return check;
  }
  auto wholes = collectPieces(tensor, global, check);
  if (!check.problem.empty()) return check;
  for (const auto& [key, whole] : wholes)
    if (std::any_of(whole.written.values.begin(), whole.written.values.end(), [](double w) { return w == 0.0; }))
      check.problem = "some elements are held by no rank";
  if (!check.problem.empty()) return check;
  const std::vector<double> reduced = reduceWholes(std::move(wholes), tensor);
  for (size_t i = 0; i < reduced.size(); ++i)
    check.maxError = std::max(check.maxError, valueDifference(reduced[i], global.data.values[i]));
  return check;
}

}  // namespace reshardctl
