#include <doctest/doctest.h>

#include "syntax/attribute_text.h"

namespace reshardctl {

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
}

TEST_CASE("writeAttributes sorts keys by byte order") {
  CHECK(writeAttributes({{"stop_gradient", "[true]"}, {"op_role", "1"}, {"op_dist_attr", "{}"}}) ==
        "{op_dist_attr:{},op_role:1,stop_gradient:[true]}");
  CHECK(writeAttributes({}) == "{}");
}

}  // namespace reshardctl
