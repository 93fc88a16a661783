// Text inside the markup the views write: a DOT string, HTML text or an
// attribute value. Dumps may hold any bytes in attribute strings; bytes that
// are not UTF-8 become U+FFFD so both Graphviz and browsers read the file.
#pragma once

#include <string>
#include <string_view>

namespace reshardctl {

// Appends `text` as the inside of a DOT "..." string; a newline becomes the
// \n line break of a label.
void appendDotString(std::string& out, std::string_view text);
// Appends `text` escaped for HTML text and for "..." attribute values.
void appendHtml(std::string& out, std::string_view text);
std::string html(std::string_view text);

}  // namespace reshardctl
