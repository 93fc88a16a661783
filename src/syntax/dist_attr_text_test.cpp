#include <doctest/doctest.h>

#include "ir/diagnostics.h"
#include "syntax/dist_attr_text.h"

namespace reshardctl {

namespace {
constexpr std::string_view kC =
    "{mesh:{shape:[2],process_ids:[0,1]},"
    "operand(0):{[mesh_shape:[2],process_ids:[0,1],dims_mappings:[0],mesh_shape:[2],process_ids:[2,3],dims_mappings:[-1], partial(0,SUM)]},"
    "operand(1):{mesh_shape:[],process_ids:[],dims_mappings:[]},"
    "result(0):{mesh_shape:[2],process_ids:[0,1],dims_mappings:[-1,0]}}";
}  // namespace

TEST_CASE("generation C: a bare tensor list splits at each mesh_shape, the empty entry is null") {
  DistTextStyle style;
  OpDistAttr attr = readOpDistAttr(kC, 0, &style);
  REQUIRE(attr.operands.size() == 2);
  REQUIRE(attr.operands[0].kind == DistEntry::Kind::List);
  REQUIRE(attr.operands[0].list.size() == 2);
  CHECK(attr.operands[0].list[1].mesh.processIds == std::vector<int64_t>{2, 3});
  CHECK(attr.operands[0].list[1].isPartial());
  CHECK(attr.operands[1].isNull());
  CHECK(style.fullEntries);
  CHECK(!style.entryDimsMaping);
  CHECK(!style.chunkId);
  CHECK(writeOpDistAttr(attr, DistGeneration::C) == kC);
}

TEST_CASE("generation D adds chunk_id (default -1) and keeps placements as printed") {
  std::string_view text =
      "{mesh:{shape:[2],process_ids:[0,1]},result(0):{mesh_shape:[2],process_ids:[0,1],"
      "dims_mappings:[0], placements:[Shard(dim=0)]},chunk_id:3}";
  DistTextStyle style;
  OpDistAttr attr = readOpDistAttr(text, 0, &style);
  CHECK(style.chunkId);
  CHECK(style.placements);
  CHECK(attr.results[0].tensor.placements == "[Shard(dim=0)]");
  CHECK(writeOpDistAttr(attr, DistGeneration::D) == text);
  attr.chunkId.reset();
  CHECK(writeOpDistAttr(attr, DistGeneration::E).ends_with(",chunk_id:-1}"));
  // Generation C has neither chunk_id nor placements.
  CHECK(writeOpDistAttr(attr, DistGeneration::C) ==
        "{mesh:{shape:[2],process_ids:[0,1]},result(0):{mesh_shape:[2],process_ids:[0,1],dims_mappings:[0]}}");
}

TEST_CASE("type dist text per generation; placements derived only when the dump uses them") {
  TensorTypeBody body =
      readTensorTypeBody("4x8xf32, mesh_shape:[2,2],process_ids:[0,1,2,3],dims_mappings:[1,-1], partial(0,AVG)", 0);
  CHECK(writeTypeDist(body.dist, DistGeneration::A) == "mesh_shape:[2,2],dims_mappings:[1,-1], partial(0,AVG)");
  CHECK(writeTypeDist(body.dist, DistGeneration::C) ==
        "mesh_shape:[2,2],process_ids:[0,1,2,3],dims_mappings:[1,-1], partial(0,AVG)");
  CHECK(writeTypeDist(body.dist, DistGeneration::D) == writeTypeDist(body.dist, DistGeneration::C));
  CHECK(writeTypeDist(body.dist, DistWriteStyle(DistGeneration::D, true)) ==
        "mesh_shape:[2,2],process_ids:[0,1,2,3],dims_mappings:[1,-1], partial(0,AVG), "
        "placements:[Partial(reduce_type=AVG), Shard(dim=0)]");
}

TEST_CASE("the generic printer's null entry is read as a null entry") {
  OpDistAttr attr = readOpDistAttr("{mesh:{shape:[1],process_ids:[0]},operand(0):{<#AttrNull>}}", 0);
  REQUIRE(attr.operands.size() == 1);
  CHECK(attr.operands[0].isNull());
}

TEST_CASE("generation A entries are recognised by their dims_maping key") {
  DistTextStyle style;
  readOpDistAttr("{mesh:{shape:[2],process_ids:[0,1]},result(0):{dims_maping:[-1]}}", 0, &style);
  CHECK(style.entryDimsMaping);
  CHECK(!style.fullEntries);
}

}  // namespace reshardctl
