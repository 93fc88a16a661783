// The attribute text last read on ops of each name, so that text a dump
// repeats is recognised by comparing bytes instead of being scanned, split,
// hashed and interned again. Ops of one kind are mostly laid out alike: in a
// training program every matmul of every layer carries the same dictionary,
// or at least the same op_dist_attr. Used by the parser's actions
// (parser.cpp) and graph_builder.cpp; internal to the syntax stage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "ir/dist_attr.h"

namespace reshardctl::parsing {

class RecentAttributes {
 public:
  // A whole dictionary `{k:v,...}` as Paddle prints it (canonical, so the
  // interned text is the one read), with where its op_dist_attr value lies.
  struct Dict {
    std::string_view text;  // interned: outlives the input
    uint32_t distOffset = 0;
    uint32_t distSize = 0;  // 0: no op_dist_attr
    const OpDistAttr* dist = nullptr;
  };
  // An op_dist_attr value.
  struct Dist {
    std::string_view text;  // outlives the input (inside interned attributes)
    const OpDistAttr* attr = nullptr;
  };

  // The dictionary that starts `input`. The dictionary rule matches exactly
  // that text there: it reads nothing past the dictionary's closing brace.
  const Dict* findDict(std::string_view opName, std::string_view input) const;
  // The op_dist_attr value that starts `input`, followed by a byte that ends
  // an attribute value at the top level (fast_scan.h: a closer, a comma or
  // whitespace; a well-formed value followed by one is exactly what the value
  // scan matches).
  const Dist* findDist(std::string_view opName, std::string_view input) const;
  // `opName` must outlive the parse (interned).
  void remember(std::string_view opName, const Dict& dict);
  void remember(std::string_view opName, const Dist& dist);

 private:
  static constexpr size_t kPerName = 4;  // ops of a name alternate between a few layouts
  struct PerName {
    Dict dicts[kPerName];
    Dist dists[kPerName];
    uint8_t nextDict = 0;  // the slot to replace next
    uint8_t nextDist = 0;
  };
  const PerName* find(std::string_view opName) const {
    auto found = byName_.find(opName);
    return found == byName_.end() ? nullptr : &found->second;
  }
  std::unordered_map<std::string_view, PerName> byName_;
};

}  // namespace reshardctl::parsing
