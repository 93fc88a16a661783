#include <doctest/doctest.h>

#include "ir/diagnostics.h"
#include "ir/string_pool.h"
#include "syntax/type_text.h"

namespace reshardctl {

namespace {

// Where readType reports `text`, found at `offset`, malformed.
size_t errorOffset(std::string_view text, size_t offset) {
  StringPool strings;
  TypeTable types(strings);
  try {
    readType(types, text, offset);
  } catch (const InputError& error) {
    return error.offset;
  }
  FAIL("no error");
  return 0;
}

}  // namespace

TEST_CASE("type text: an error in a vec element points at the element") {
  // "pd_dist.tensor needs a distribution after its dtype", at the element.
  CHECK(errorOffset("pd_dist.tensor<8xf32>", 100) == 100);
  CHECK(errorOffset("vec[pd_dist.tensor<8xf32>]", 100) == 104);
  CHECK(errorOffset("vec[ pd_dist.tensor<8xf32>]", 100) == 105);
  CHECK(errorOffset("vec[tensor<8xf32>, pd_dist.tensor<8xf32>]", 100) == 119);
}

}  // namespace reshardctl

namespace reshardctl {

TEST_CASE("type text: a tensor of the null dtype (BasicIrPrinter::PrintType) reads, shape kept") {
  StringPool strings;
  TypeTable types(strings);
  const Type* type = readType(types, "builtin.tensor<0x<<NULL TYPE>>>", 0);
  REQUIRE(type != nullptr);
  CHECK(type->isTensor());
  CHECK(type->dtype == "<<NULL TYPE>>");
  CHECK(type->dims.size() == 1);
  CHECK(type->text == "builtin.tensor<0x<<NULL TYPE>>>");
}

}  // namespace reshardctl
