#include "ir/dist_generation.h"

namespace reshardctl {

std::string_view generationName(DistGeneration generation) {
  switch (generation) {
    case DistGeneration::A: return "A";
    case DistGeneration::C: return "C";
    case DistGeneration::D: return "D";
    case DistGeneration::E: return "E";
  }
  return "?";
}

}  // namespace reshardctl
