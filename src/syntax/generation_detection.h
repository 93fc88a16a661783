// Which of Paddle's print generations a dump was written in (docs/format.md,
// "Print eras"), judged from what its text showed while it was parsed.
// New ops are then written the same way (dist_attr_text.h).
#pragma once

#include <string_view>

#include "syntax/dist_attr_text.h"

namespace reshardctl {

// What the parser saw, over the whole file.
struct GenerationEvidence {
  DistTextStyle dist;          // from the dist types and op_dist_attr texts
  bool sawOpDistAttr = false;  // any op_dist_attr at all
  bool sawAttrPrefix = false;  // `(Int32)1`, `(pd_op.DataType)float32`: before generation E
  bool sawBareTensor = false;  // a dense type printed `tensor<..>`: generation E
};

// Whether an attribute value starts with an attribute-kind prefix, alone or as
// the first element of an array (`(Float)1`, `[(Int32)1,(Int32)2]`).
bool startsWithAttrKindPrefix(std::string_view value);

// chunk_id or placements → D, or E when the attribute prefixes are gone or
// dense types print as `tensor<..>`; process ids in types or entries → C;
// otherwise (and with no dist text) A.
DistWriteStyle detectGeneration(const GenerationEvidence& evidence);

}  // namespace reshardctl
