#include <cmath>

#include <doctest/doctest.h>

#include "interp/op_attributes.h"
#include "interp/tensor.h"

namespace reshardctl {

TEST_CASE("attribute values as Paddle prints them, with and without kind prefixes") {
  const OpAttributes a(
      "{axis:(Int32)-1,axes:[(Int64)1,(Int64)2],dtype:(pd_op.DataType)float32,epsilon:(Float)1e-05,"
      "keepdim:false,mode:\"upscale_in_train\",shape:(pd_op.IntArray)[4,16],value:(Double)-inf}");
  CHECK(a.integer("axis", 0) == -1);
  CHECK(a.integers("axes") == std::vector<int64_t>{1, 2});
  CHECK(a.dtype("dtype") == DType::F32);
  CHECK(a.number("epsilon", 0) == doctest::Approx(1e-5));
  CHECK_FALSE(a.boolean("keepdim", true));
  CHECK(a.string("mode", "") == "upscale_in_train");
  CHECK(a.integers("shape") == std::vector<int64_t>{4, 16});
  CHECK(std::isinf(a.number("value", 0)));
  CHECK(a.integer("missing", 7) == 7);

  const OpAttributes bare("{axis:-1,dtype:float32,shape:[4,16],value:1e-05,empty:[]}");  // generation E
  CHECK(a.integer("axis", 0) == bare.integer("axis", 0));
  CHECK(bare.dtype("dtype") == DType::F32);
  CHECK(bare.integers("shape") == std::vector<int64_t>{4, 16});
  CHECK(bare.integers("empty").empty());
  CHECK(bare.number("value", 0) == doctest::Approx(1e-5));
}

TEST_CASE("an attribute of the wrong form is an error, not a guess") {
  const OpAttributes a("{axis:(Float)1.5,keepdim:[true],shape:(pd_op.IntArray)[4,x],mode:plain,dtype:(pd_op.DataType)undefined}");
  CHECK_THROWS_AS(a.integer("axis", 0), KernelError);
  CHECK_THROWS_AS(a.boolean("keepdim", false), KernelError);
  CHECK_THROWS_AS(a.integers("shape"), KernelError);
  CHECK_THROWS_AS(a.string("mode", ""), KernelError);
  CHECK_FALSE(a.dtype("dtype").has_value());
}

}  // namespace reshardctl
