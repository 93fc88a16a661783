// Random programs for the differential test, deterministic by seed: 1-3
// meshes of up to 3 dims with offset and permuted process ids (sub-meshes,
// the same ids as another shape), values dense and distributed with partials
// of all seven reduce types, multi-use, null values and `{null}` entries,
// entries on other meshes, existing reshards, nested pd_op.if / pd_op.while,
// `[id:N]` debug ids. One model prints in every generation (program_text.h).
#pragma once

#include <cstdint>

#include "program_model.h"

namespace differential {

ProgramModel generateProgram(uint64_t seed);

}  // namespace differential
