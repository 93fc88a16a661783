// Which part of the global tensor a rank holds. A tensor dim of size n split over
// k ranks is cut into chunks of ceil(n/k); the last chunks are shorter or empty
// (torch.chunk, and Paddle's PIR r_to_s: piece_len = ceil(total/n), last = rest).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "reshard/mesh_coords.h"
#include "reshard/placement.h"

namespace reshardctl {

// A box [begin, end) per tensor dim, in global coordinates.
struct Box {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;

  size_t rank() const { return begin.size(); }
  int64_t extent(size_t dim) const { return end[dim] - begin[dim]; }
  int64_t volume() const;  // 0 when any extent is 0
  bool empty() const { return volume() == 0; }
  friend bool operator==(const Box&, const Box&) = default;
};

Box fullBox(const std::vector<int64_t>& shape);
Box intersect(const Box& a, const Box& b);  // may be empty
bool contains(const Box& outer, const Box& inner);  // an empty inner is contained anywhere

int64_t chunkSize(int64_t size, int64_t count);  // ceil(size / count)
// Chunk `index` of [0, size) cut into `count` chunks.
std::pair<int64_t, int64_t> chunkRange(int64_t size, int64_t count, int64_t index);

// The box held by the rank at `coord` on `layout.mesh`. Partial placements do not
// cut the box: a partial rank holds a whole-size partial piece.
Box localBox(const std::vector<int64_t>& shape, const Layout& layout, const MeshCoord& coord);

// The per-rank buffer shape collectives work on: every split dim padded to its
// full chunk, as NCCL needs equal counts on every rank.
std::vector<int64_t> paddedLocalShape(const std::vector<int64_t>& shape, const Layout& layout);
int64_t elementCount(const std::vector<int64_t>& shape);

}  // namespace reshardctl
