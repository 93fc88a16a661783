// Helpers shared by the view tests (not part of the tool): a repository
// file or a text loaded, verified and wrapped in a ViewContext.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "syntax/testing.h"
#include "view/view_context.h"

namespace reshardctl::testing {

struct Viewed {
  Parsed parsed;
  std::unique_ptr<ViewContext> view;
};

inline Viewed viewText(const std::string& text, const std::string& name = "test.ir") {
  Viewed viewed{parse(text, name), nullptr};
  REQUIRE_MESSAGE(viewed.parsed.program, viewed.parsed.errors());
  viewed.view = std::make_unique<ViewContext>(*viewed.parsed.program, *viewed.parsed.source, CostModel{});
  return viewed;
}

inline Viewed viewFile(const std::string& relative) { return viewText(readRepoFile(relative), relative); }

// How many times `needle` occurs in `text`.
inline size_t occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

}  // namespace reshardctl::testing
