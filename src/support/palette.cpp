#include "support/palette.h"

namespace reshardctl {

// Fixed sequences rather than fmt/color.h's styles: fmt writes bold red as
// two sequences ("\x1b[1m\x1b[31m"), and the output must stay byte for byte
// what it has been ("\x1b[1;31m").
const char* Palette::operator()(Ink ink) const {
  if (!color_) return "";
  switch (ink) {
    case Ink::Bold: return "\x1b[1m";
    case Ink::Error: return "\x1b[1;31m";
    case Ink::Warning: return "\x1b[1;35m";
    case Ink::Note: return "\x1b[1;36m";
    case Ink::Caret: return "\x1b[1;32m";
    case Ink::DiffHeader: return "\x1b[1m";
    case Ink::DiffHunk: return "\x1b[36m";
    case Ink::DiffRemoved: return "\x1b[31m";
    case Ink::DiffAdded: return "\x1b[32m";
  }
  return "";
}

}  // namespace reshardctl
