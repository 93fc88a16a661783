#include "interp/share/rank_share.h"

#include <limits>

#include <doctest/doctest.h>

#include "exec/piece.h"

namespace reshardctl {

TEST_CASE("rank share: pieces, absent ones and lists survive packing") {
  Tensor dense;
  dense.shape = {2, 3};
  dense.data = {1, 2, 3, 4, 5, 6.5};
  dense.dtype = DType::BF16;
  std::vector<double> stream;
  packPiece(dense, stream);
  packPiece(std::nullopt, stream);
  packPiece(Tensor::list({dense, Tensor::filled({1}, 7, DType::I64)}), stream);
  size_t at = 0;
  const std::optional<Tensor> first = unpackPiece(stream, at);
  REQUIRE(first);
  CHECK(first->shape == dense.shape);
  CHECK(first->data == dense.data);
  CHECK(first->dtype == DType::BF16);
  CHECK_FALSE(unpackPiece(stream, at));
  const std::optional<Tensor> list = unpackPiece(stream, at);
  REQUIRE(list);
  REQUIRE(list->isList);
  REQUIRE(list->items.size() == 2);
  CHECK(list->items[1].dtype == DType::I64);
  CHECK(list->items[1].data == std::vector<double>{7});
  CHECK(at == stream.size());
}

TEST_CASE("rank share: a malformed stream is an error, not a crash") {
  Tensor dense;
  dense.shape = {4};
  dense.data = {1, 2, 3, 4};
  std::vector<double> stream;
  packPiece(dense, stream);
  for (size_t cut = 0; cut < stream.size(); ++cut) {  // every truncation
    std::vector<double> truncated(stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(cut));
    size_t at = 0;
    CHECK_THROWS_AS(unpackPiece(truncated, at), ExecutionError);
  }
  std::vector<double> bad = {1, 0, 1.5};
  size_t at = 0;
  CHECK_THROWS_AS(unpackPiece(bad, at), ExecutionError);
  std::vector<double> deep(40, 1);  // lists of lists of ...
  at = 0;
  CHECK_THROWS_AS(unpackPiece(deep, at), ExecutionError);
}

}  // namespace reshardctl

namespace reshardctl {

TEST_CASE("rank share: a divergence survives its text, awkward bytes included") {
  Divergence d;
  d.kind = "serial";
  d.message = "pd_op.relu result 0 (%9:\t;x): differs\n(max rel err 0.5 at [1,2])";
  d.value = "%9:\t;x";
  d.result = 0;
  d.ranks = {3, 7};
  d.maxAbsDiff = 0.1;
  d.maxRelErr = std::numeric_limits<double>::infinity();
  d.index = {1, 2};
  const std::string text = encodeDivergence(d);
  const Divergence back = decodeDivergence(nullptr, text);  // the reader names the op
  CHECK(back.kind == d.kind);
  CHECK(back.message == d.message);
  CHECK(back.value == d.value);
  CHECK(back.result == d.result);
  CHECK(back.ranks == d.ranks);
  CHECK(back.maxAbsDiff == d.maxAbsDiff);
  CHECK(back.maxRelErr == d.maxRelErr);
  CHECK(back.index == d.index);
  for (size_t cut = 0; cut < text.size(); ++cut)
    CHECK_THROWS_AS(decodeDivergence(nullptr, text.substr(0, cut)), ExecutionError);
}

TEST_CASE("rank share: shapes travel without elements, as stubs") {
  Tensor piece = Tensor::filled({2, 3}, 1.5, DType::F16);
  std::vector<double> stream;
  packPiece(piece, stream, false);
  size_t at = 0;
  const std::optional<Tensor> stub = unpackPiece(stream, at);
  REQUIRE(stub);
  CHECK(stub->shape == piece.shape);
  CHECK(stub->dtype == DType::F16);
  CHECK(stub->data.empty());
  const Tensor listed = stubOf(Tensor::list({piece, piece}));
  REQUIRE(listed.items.size() == 2);
  CHECK(listed.items[1].shape == piece.shape);
  CHECK(listed.items[1].data.empty());
}

}  // namespace reshardctl
