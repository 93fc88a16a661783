// Prints a ProgramModel the way Paddle's printer of one generation would
// (docs/format.md), written from that page alone: the differential test's
// inputs, and the text it expects of new reshards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program_model.h"

namespace differential {

struct RenderOptions {
  Gen gen = Gen::C;
  // Names values `%v<k>` in a shuffled order instead of Paddle's %0, %1, ...
  bool renameValues = false;
  uint64_t renameSeed = 0;
};

struct Rendered {
  std::string text;
  std::vector<size_t> opLine;          // per op index: its 1-based line
  std::vector<std::string> valueName;  // per value index: its name in the text
};

Rendered renderProgram(const ProgramModel& program, const RenderOptions& options);

// Pieces of the text, also used to spell what a new reshard must print.
std::string typeText(const TensorType& type, const DistView* dist, Gen gen, bool placements);
std::string distText(const DistView& dist, Gen gen, bool placements);
std::string entryText(const DistView* dist, const MeshView& opMesh, Gen gen, bool placements);  // nullptr: null
std::string opDistAttrText(const MeshView& mesh, const std::vector<const DistView*>& operands,
                           const std::vector<const DistView*>& results, int64_t chunkId, Gen gen, bool placements);
// `{k:v,...}` with the keys sorted, `{}` when empty.
std::string attributesText(std::vector<std::pair<std::string, std::string>> entries);
std::string stopGradientText(const std::vector<bool>& flags);
std::string opRoleText(int role, Gen gen);

}  // namespace differential
