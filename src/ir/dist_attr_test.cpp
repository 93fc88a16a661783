#include <doctest/doctest.h>

#include "ir/diagnostics.h"
#include "ir/dist_attr.h"
#include "syntax/dist_attr_text.h"

namespace reshardctl {

namespace {
ProcessMesh mesh(std::vector<int64_t> shape, std::vector<int64_t> ids) {
  return ProcessMesh{std::move(shape), std::move(ids), true};
}
}  // namespace

TEST_CASE("equality: mesh, dims_mapping and partial status; partial order is ignored") {
  TensorDistAttr a{mesh({2, 2}, {0, 1, 2, 3}), {-1, -1}, {{0, ReduceType::Sum}, {1, ReduceType::Sum}}, {}};
  TensorDistAttr b = a;
  std::swap(b.partials[0], b.partials[1]);
  CHECK(a == b);
  b.partials[0].reduce = ReduceType::Max;
  CHECK_FALSE(a == b);  // SUM and MAX differ
  TensorDistAttr c = a;
  c.mesh.processIds = {4, 5, 6, 7};
  CHECK_FALSE(a == c);
  c.mesh.idsKnown = false;  // known only by its shape: matches any mesh of that shape
  c.mesh.processIds.clear();
  CHECK(a == c);
}

TEST_CASE("merged mesh: sorted union of ids, flattened to 1-D") {
  ProcessMesh merged = mergeMeshes(mesh({2}, {3, 1}), mesh({2, 2}, {0, 1, 2, 5}));
  CHECK(merged.shape == std::vector<int64_t>{5});
  CHECK(merged.processIds == std::vector<int64_t>{0, 1, 2, 3, 5});
  CHECK(mergeMeshes(mesh({2}, {0, 1}), mesh({2}, {0, 1})).shape == std::vector<int64_t>{2});
}

TEST_CASE("merged mesh: named \"merged\", so it equals neither side, even one with its shape and ids") {
  const ProcessMesh global = mesh({4}, {0, 1, 2, 3});
  // A sub-mesh to the global 1-D mesh, an N-D mesh over the same ids, permuted ids.
  for (const ProcessMesh& other : {mesh({2}, {0, 1}), mesh({2, 2}, {0, 1, 2, 3}), mesh({4}, {3, 2, 1, 0})}) {
    const ProcessMesh merged = mergeMeshes(other, global);
    CHECK(merged.shape == global.shape);
    CHECK(merged.processIds == global.processIds);
    CHECK(merged.dimNames == std::vector<std::string>{"merged"});
    CHECK_FALSE(merged == global);
    CHECK_FALSE(merged == other);
    CHECK(mergeMeshes(global, other) == merged);
  }
  // Equal meshes merge to themselves (MergeMeshes returns mesh1).
  CHECK(mergeMeshes(global, global) == global);
  CHECK(mergeMeshes(global, global).dimNames.empty());
}

TEST_CASE("generation A: both entries of a reshard on a merged mesh print their mesh_shape") {
  // The issue-16 case: [2] S(0) to the global [4] mesh replicated.
  OpDistAttr attr;
  attr.mesh = mergeMeshes(mesh({2}, {0, 1}), mesh({4}, {0, 1, 2, 3}));
  attr.operands.push_back(DistEntry{DistEntry::Kind::Tensor, {mesh({2}, {0, 1}), {0}, {}, {}}, {}, 0});
  attr.results.push_back(DistEntry{DistEntry::Kind::Tensor, {mesh({4}, {0, 1, 2, 3}), {-1}, {}, {}}, {}, 0});
  CHECK(writeOpDistAttr(attr, DistGeneration::A) ==
        "{mesh:{shape:[4],process_ids:[0,1,2,3]},operand(0):{mesh_shape:[2],dims_maping:[0]},"
        "result(0):{mesh_shape:[4],dims_maping:[-1]}}");
  // An op's own mesh (no dim name) still leaves equal entries bare.
  attr.mesh = mesh({4}, {0, 1, 2, 3});
  CHECK(writeOpDistAttr(attr, DistGeneration::A) ==
        "{mesh:{shape:[4],process_ids:[0,1,2,3]},operand(0):{mesh_shape:[2],dims_maping:[0]},"
        "result(0):{dims_maping:[-1]}}");
}

TEST_CASE("reading a generation-A op_dist_attr") {
  std::string text =
      "{mesh:{shape:[2,2],process_ids:[0,1,2,3]},operand(0):{dims_maping:[-1,1],partial(0,MAX)},"
      "operand(1):{null},result(0):{mesh_shape:[2],dims_maping:[0]}}";
  OpDistAttr attr = readOpDistAttr(text, 0);
  CHECK(attr.mesh.processIds.size() == 4);
  REQUIRE(attr.operands.size() == 2);
  CHECK(attr.operands[0].tensor.mesh == attr.mesh);  // an entry without mesh_shape is on the op mesh
  CHECK(attr.operands[0].tensor.partialOn(0) == ReduceType::Max);
  CHECK(attr.operands[1].isNull());
  CHECK_FALSE(attr.results[0].tensor.mesh.idsKnown);
  CHECK(text.substr(attr.results[0].textOffset, 10) == "result(0):");
  // Writing it back gives the same text.
  CHECK(writeOpDistAttr(attr, DistGeneration::A) == text);
}

TEST_CASE("reading a tensor type body") {
  TensorTypeBody body = readTensorTypeBody("4x-1xbf16, mesh_shape:[2],dims_mappings:[-1,-1], partial(0,AVG)", 100);
  CHECK(body.dims == std::vector<int64_t>{4, -1});
  CHECK(body.dtype == "bf16");
  CHECK(body.distributed);
  CHECK(body.dist.partials.size() == 1);
  CHECK(writeTypeDist(body.dist, DistGeneration::A) == "mesh_shape:[2],dims_mappings:[-1,-1], partial(0,AVG)");
  CHECK(readTensorTypeBody("f32", 0).dims.empty());
}

TEST_CASE("bad distributions are rejected with the offending field's position") {
  auto errorOf = [](std::string_view text) {
    try {
      readOpDistAttr(text, 10);
    } catch (const InputError& e) {
      return std::to_string(e.offset) + ": " + e.message;
    }
    return std::string("no error");
  };
  CHECK(errorOf("{mesh:{shape:[2],process_ids:[0,1]},operand(0):{dims_maping:[0,0]}}") ==
        "70: dims_mapping names mesh dim 0 twice");
  CHECK(errorOf("{mesh:{shape:[2],process_ids:[0,1]},operand(0):{dims_maping:[0],partial(0,SUM)}}") ==
        "74: mesh dim 0 is both split (dims_mapping) and partial");
  CHECK(errorOf("{mesh:{shape:[2],process_ids:[0,0]}}") == "39: process_ids names one process twice");
  CHECK(errorOf("{mesh:{shape:[0],process_ids:[]}}") == "23: mesh shape [0] has a dim that is not positive");
  // An index far past the entries read would only allocate nulls.
  CHECK(errorOf("{mesh:{shape:[2],process_ids:[0,1]},operand(99999999):{null}}") ==
        "54: entry index 99999999 is far past the 0 entries before it");
}

}  // namespace reshardctl
