#include "syntax/generation_detection.h"

namespace reshardctl {

namespace {

// `(Int32)`, `(Float)`, `(pd_op.DataType)`...: the attribute-kind prefixes
// that BasicIrPrinter and op_dialect.cc wrote until PR #70534 (2024-12-28).
bool isAttrKindPrefix(std::string_view group) {
  static constexpr std::string_view kKinds[] = {"(Float)", "(Double)", "(Int32)", "(Int64)",
                                                "(Index)", "(Pointer)", "(Complex64)",
                                                "(Complex128)"};
  if (group.starts_with("(pd_op.")) return true;
  for (std::string_view kind : kKinds)
    if (group == kind) return true;
  return false;
}

}  // namespace

// A value never mixes prefixed and bare elements, so its head decides.
bool startsWithAttrKindPrefix(std::string_view value) {
  if (value.starts_with('[')) value.remove_prefix(1);
  if (!value.starts_with('(')) return false;
  size_t close = value.find(')');
  return close != std::string_view::npos && isAttrKindPrefix(value.substr(0, close + 1));
}

DistWriteStyle detectGeneration(const GenerationEvidence& evidence) {
  const DistTextStyle& seen = evidence.dist;
  bool anyDist = evidence.sawOpDistAttr || seen.typeIds || seen.typeWithoutIds;
  bool laterD = seen.chunkId || seen.placements;
  DistWriteStyle style;
  if (!anyDist)
    style.generation = DistGeneration::A;
  else if (evidence.sawBareTensor || (laterD && !evidence.sawAttrPrefix))
    style.generation = DistGeneration::E;
  else if (laterD)
    style.generation = DistGeneration::D;
  else if (seen.fullEntries || seen.typeIds)
    style.generation = DistGeneration::C;
  // New layouts carry placements only where every type in the dump does.
  style.placements = seen.placements && !seen.typeWithoutPlacements;
  return style;
}

}  // namespace reshardctl
