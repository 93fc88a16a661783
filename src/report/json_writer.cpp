#include "report/json_writer.h"

#include <nlohmann/json.hpp>

#include "support/text.h"

namespace reshardctl {

namespace {

// Bytes nlohmann writes unchanged inside a string: printable ASCII but the
// quote and the backslash. Anything else takes its serializer.
bool plainAscii(std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

void JsonWriter::beforeValue() {
  started_ = true;
  if (afterKey_) {  // an object member: the key wrote the separator
    afterKey_ = false;
    return;
  }
  if (levels_.empty()) return;  // the top-level value
  Level& level = levels_.back();
  out_ += level.empty ? "\n" : ",\n";
  level.empty = false;
  indent(levels_.size());
}

void JsonWriter::key(std::string_view name) {
  Level& level = levels_.back();
  out_ += level.empty ? "\n" : ",\n";
  level.empty = false;
  indent(levels_.size());
  quoted(name);
  out_ += ": ";
  afterKey_ = true;
}

void JsonWriter::open(char bracket) {
  beforeValue();
  out_ += bracket;
  levels_.push_back(Level{bracket == '{'});
}

void JsonWriter::close(char bracket) {
  const bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) {
    out_ += '\n';
    indent(levels_.size());
  }
  out_ += bracket;
}

void JsonWriter::string(std::string_view text) {
  beforeValue();
  quoted(text);
}

void JsonWriter::quoted(std::string_view text) {
  if (plainAscii(text)) {
    out_ += '"';
    out_ += text;
    out_ += '"';
    return;
  }
  out_ += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonWriter::integer(int64_t value) {
  beforeValue();
  appendDecimal(out_, value);
}

void JsonWriter::null() {
  beforeValue();
  out_ += "null";
}

}  // namespace reshardctl
