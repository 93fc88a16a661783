#include <doctest/doctest.h>

#include "syntax/attribute_dictionary.h"

namespace reshardctl {

TEST_CASE("attribute dictionaries split at top-level commas only") {
  auto entries = splitAttributes(
      "{axis:(Int32)-1,name:\"a,b}\\\"[\",op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},"
      "result(0):{dims_maping:[-1,-1],partial(0,SUM)}},t:pd_dist.tensor<4xf32, mesh_shape:[2]>}");
  REQUIRE(entries.size() == 4);
  CHECK(entries[0].key == "axis");
  CHECK(entries[0].value == "(Int32)-1");
  CHECK(entries[1].value == "\"a,b}\\\"[\"");
  CHECK(entries[2].key == "op_dist_attr");
  CHECK(entries[2].value.back() == '}');
  CHECK(entries[3].key == "t");
  CHECK(entries[3].value == "pd_dist.tensor<4xf32, mesh_shape:[2]>");
}

TEST_CASE("empty, spaced and malformed dictionaries") {
  CHECK(splitAttributes("{}").empty());
  CHECK(splitAttributes("not a dict").empty());
  auto spaced = splitAttributes("{ a:1 , b : [2] }");
  REQUIRE(spaced.size() == 2);
  CHECK(spaced[1].key == "b");
  CHECK(spaced[1].value == "[2]");
  // A stray closer ends the split instead of looping.
  CHECK(splitAttributes("{a:1]x,b:2}").size() == 1);
}

TEST_CASE("findAttribute reads top-level keys only") {
  std::string_view dict =
      "{op_dist_attr:{mesh:{shape:[2],process_ids:[0,1]},operand(0):{stop_gradient:x}},"
      "op_role:(Int32)1,name:\"a,stop_gradient:[true]\",stop_gradient:[true,false]}";
  CHECK(findAttribute(dict, "stop_gradient") == std::optional<std::string_view>("[true,false]"));
  CHECK(findAttribute(dict, "op_role") == std::optional<std::string_view>("(Int32)1"));
  CHECK(!findAttribute(dict, "op").has_value());
  CHECK(!findAttribute("{}", "op_role").has_value());
}

TEST_CASE("boolArrayElement picks one element") {
  CHECK(boolArrayElement("[true,false]", 1) == std::optional<bool>(false));
  CHECK(boolArrayElement("[true]", 0) == std::optional<bool>(true));
  CHECK(!boolArrayElement("[true]", 1).has_value());
  CHECK(!boolArrayElement("true", 0).has_value());
  CHECK(boolArrayElement("[[true],false]", 1) == std::optional<bool>(false));
}

TEST_CASE("writeAttributes sorts keys by byte order") {
  CHECK(writeAttributes({{"stop_gradient", "[true]"}, {"op_role", "1"}, {"op_dist_attr", "{}"}}) ==
        "{op_dist_attr:{},op_role:1,stop_gradient:[true]}");
  CHECK(writeAttributes({}) == "{}");
}

}  // namespace reshardctl
