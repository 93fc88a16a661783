// The style sheet and script the page inlines (no network, no CDN): plain
// CSS and a small script for search by value name, links from the picture
// to the listing, expand/collapse, and a self-check that tests read back
// from the rendered DOM (body data-ready, data-rendered-ops,
// data-highlighted-reshards). Their text is assets/page.css and
// assets/page.js, embedded byte for byte at build time (src/view/CMakeLists.txt).
#pragma once

#include <string_view>

namespace reshardctl {

extern const std::string_view kPageStyle;
extern const std::string_view kPageScript;

}  // namespace reshardctl
