#include "interp/layout_pieces.h"

#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reshard/reduce_op.h"

namespace reshardctl {

namespace {

// Calls f(globalOffset, pieceOffset) for every element of `box` in a tensor of
// `globalShape`, row by row.
template <typename F>
void forEachInBox(const Shape& globalShape, const Box& box, F f) {
  if (box.empty()) return;
  const Shape strides = stridesOf(globalShape);
  const size_t rank = globalShape.size();
  Shape index(rank, 0);
  const int64_t rowLength = rank == 0 ? 1 : box.extent(rank - 1);
  int64_t pieceOffset = 0;
  while (true) {
    int64_t globalOffset = 0;
    for (size_t d = 0; d < rank; ++d) globalOffset += (box.begin[d] + index[d]) * strides[d];
    for (int64_t k = 0; k < rowLength; ++k) f(globalOffset + k, pieceOffset++);
    if (rank <= 1) return;
    size_t d = rank - 1;
    while (d-- > 0) {
      if (++index[d] < box.extent(d)) break;
      index[d] = 0;
      if (d == 0) return;
    }
  }
}

std::vector<size_t> partialMeshDims(const Layout& layout) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < layout.placements.size(); ++d)
    if (layout.placements[d].isPartial()) dims.push_back(d);
  return dims;
}

Shape extentsOf(const Box& box) {
  Shape extents(box.rank());
  for (size_t d = 0; d < box.rank(); ++d) extents[d] = box.extent(d);
  return extents;
}

// One whole-tensor buffer per combination of partial coordinates.
struct Whole {
  std::vector<double> values;
  std::vector<int64_t> writer;  // the process that wrote each element, -1 if none
};

std::vector<double> reduceWholes(std::map<Shape, Whole> wholes, const Layout& layout) {
  std::map<Shape, std::vector<double>> values;
  for (auto& [key, whole] : wholes) values[key] = std::move(whole.values);
  std::vector<ReduceType> types;
  for (size_t dim : partialMeshDims(layout)) types.push_back(layout.placements[dim].reduce);
  return reducePartialWholes(std::move(values), types, DType::F64);
}

}  // namespace

Box pieceBox(const Shape& globalShape, const Layout& layout, const MeshCoord& coord) {
  return localBox(globalShape, layout, coord);
}

Tensor pieceOf(const Tensor& global, const Layout& layout, const MeshCoord& coord) {
  const Box box = pieceBox(global.shape, layout, coord);
  Tensor piece = Tensor::filled(extentsOf(box), 0.0, global.dtype);
  for (size_t d : partialMeshDims(layout)) {
    const Placement& p = layout.placements[d];
    if (coord[d] == 0 || p.reduce == ReduceType::Avg) continue;
    std::fill(piece.data.begin(), piece.data.end(), reduceIdentity(p.reduce, global.dtype));
    return piece;
  }
  forEachInBox(global.shape, box, [&](int64_t from, int64_t to) { piece[to] = global[from]; });
  return piece;
}

Assembly assemble(const Shape& globalShape, DType dtype, const Layout& layout, const PieceLookup& lookup,
                  const Tolerance& tolerance) {
  Assembly out;
  const std::vector<size_t> partialDims = partialMeshDims(layout);
  const size_t n = static_cast<size_t>(numelOf(globalShape));
  std::map<Shape, Whole> wholes;
  for (int64_t position = 0; position < layout.mesh.size(); ++position) {
    const int64_t id = processIdAt(layout.mesh, position);
    const MeshCoord coord = meshCoord(layout.mesh, position);
    const Box box = pieceBox(globalShape, layout, coord);
    const Tensor* piece = lookup(id);
    if (piece == nullptr || piece->isList) {
      out.problem = Assembly::Problem::MissingPiece;
      out.rank = id;
      return out;
    }
    if (piece->shape != extentsOf(box)) {
      out.problem = Assembly::Problem::WrongShape;
      out.rank = id;
      out.held = piece->shape;
      out.expected = extentsOf(box);
      return out;
    }
    Shape key;
    for (size_t d : partialDims) key.push_back(coord[d]);
    auto [entry, added] = wholes.try_emplace(key);
    Whole& whole = entry->second;
    if (added) whole = {std::vector<double>(n, 0.0), std::vector<int64_t>(n, -1)};
    forEachInBox(globalShape, box, [&](int64_t at, int64_t from) {
      const auto i = static_cast<size_t>(at);
      const double value = (*piece)[from];
      if (whole.writer[i] >= 0 && !withinTolerance(value, whole.values[i], tolerance)) {
        const double diff = std::isnan(value - whole.values[i]) ? INFINITY : std::fabs(value - whole.values[i]);
        if (out.problem == Assembly::Problem::None || diff > out.maxDiff) {
          out.problem = Assembly::Problem::ReplicasDiffer;
          out.rank = id;
          out.otherRank = whole.writer[i];
          out.maxDiff = diff;
        }
        return;
      }
      whole.values[i] = value;
      whole.writer[i] = id;
    });
  }
  if (out.problem != Assembly::Problem::None) return out;
  out.global = Tensor::filled(globalShape, 0.0, dtype);
  out.global.data = reduceWholes(std::move(wholes), layout);
  return out;
}

Mismatch compareTensors(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance) {
  Mismatch m;
  if (actual.shape != expected.shape) {
    m.differs = m.shapeDiffers = true;
    return m;
  }
  int64_t worst = -1;
  for (size_t i = 0; i < actual.data.size(); ++i) {
    const double a = actual.data[i];
    const double e = expected.data[i];
    if (withinTolerance(a, e, tolerance)) continue;
    const double abs = std::isnan(a - e) ? INFINITY : std::fabs(a - e);
    const double rel = e != 0.0 ? abs / std::fabs(e) : abs;
    m.maxAbsErr = std::max(m.maxAbsErr, abs);
    if (worst < 0 || rel > m.maxRelErr) {
      m.maxRelErr = rel;
      worst = static_cast<int64_t>(i);
    }
  }
  if (worst < 0) return m;
  m.differs = true;
  const Shape strides = stridesOf(expected.shape);
  for (size_t d = 0; d < strides.size(); ++d) m.index.push_back((worst / strides[d]) % expected.shape[d]);
  return m;
}

std::string indexText(const Shape& index) { return fmt::format("[{}]", fmt::join(index, ",")); }

}  // namespace reshardctl
