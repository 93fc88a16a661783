// Indented JSON written as it goes, byte for byte as nlohmann::json's
// dump(2) prints the same document: "key": value pairs one per line, two
// spaces per level, empty containers as {} and [], strings escaped by
// nlohmann itself (invalid UTF-8 becomes U+FFFD). Building the document as a
// json tree first costs an allocation per node; this costs none per value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace reshardctl {

class JsonWriter {
 public:
  // Appends to `out`, which the caller may drain between values.
  explicit JsonWriter(std::string& out) : out_(out) {}

  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  void key(std::string_view name);  // the next value is this member's

  void string(std::string_view text);
  void integer(int64_t value);
  void null();

  // The top level's container is closed: the document is complete.
  bool done() const { return levels_.empty() && started_; }

 private:
  void open(char bracket);
  void close(char bracket);
  void beforeValue();  // the separator and indent an array element needs
  void quoted(std::string_view text);  // escaped, in quotes
  void indent(size_t depth) { out_.append(depth * 2, ' '); }

  struct Level {
    bool object;
    bool empty = true;
  };
  std::string& out_;
  std::vector<Level> levels_;
  bool afterKey_ = false;
  bool started_ = false;
};

}  // namespace reshardctl
