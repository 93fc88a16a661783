// An op's attribute dictionary `{k1:v1,k2:v2}`: read while parsing (with a
// memo of the dictionaries a dump repeats), kept in the form Paddle prints,
// looked up, and written. Every split and every end of a value is
// grammar/top_level_scan.h's scan, the one the grammar reads values with.
//
// Looking up and writing (any stage): the IR keeps the dictionary as one
// span; tools that name or drop single attributes (the pass, diff, JSON
// export, views) split it here, and a new dictionary is written the way
// IrPrinter::PrintAttributeMap does (keys sorted by byte order, joined ",").
//
// Reading (the syntax stage only, namespace parsing): what the parser's
// actions read of an op's dictionary (DictionaryRead), the text the op keeps
// (keptDictionary), and the memo that spares reading a dictionary again
// (AttributeMemo). parser.cpp's attr_dict and attr_value actions ask the memo
// first; graph_builder.cpp keeps each op's text and tells the memo what it
// turned out to be.
//
// Ops of one kind are mostly laid out alike: in a training program every
// matmul of every layer carries the same dictionary, or at least the same
// op_dist_attr. So the last few texts read on ops of each name are compared
// byte for byte with what follows in the input, instead of being scanned,
// split, hashed and interned again. The comparison is the whole safety
// argument: a remembered dictionary ends with its closing brace, so the input
// holds that same dictionary; a remembered op_dist_attr value must also be
// followed by a byte that ends a value (grammar::endsTopLevelValue), or the
// input's value is longer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/dist_attr.h"
#include "ir/string_pool.h"
#include "support/text_hash_table.h"

namespace reshardctl {

// ---- looking up and writing ----------------------------------------------------

struct AttributeEntry {
  std::string_view key;
  std::string_view value;  // verbatim, e.g. `[true]` or `{mesh:{...},...}`
};

// The entries of `dictionary`, split at the commas that are not inside
// brackets or a string, each key and value without surrounding whitespace.
// Text that is not a `{...}` dictionary (the parser never produces one)
// yields no entries; a stray closer ends the split.
std::vector<AttributeEntry> splitAttributes(std::string_view dictionary);

// The value text of top-level `key` in `dict`, or nullopt when absent. No
// allocation: the pass looks up attributes of every op it resharded.
std::optional<std::string_view> findAttribute(std::string_view dict, std::string_view key);

// Element `index` of a bool array value such as `[true,false]`; nullopt when
// the text is not such an array or is too short.
std::optional<bool> boolArrayElement(std::string_view array, size_t index);

// `{k1:v1,k2:v2}` with the keys sorted.
std::string writeAttributes(std::vector<std::pair<std::string_view, std::string>> entries);

// ---- reading (the syntax stage) -------------------------------------------------

namespace parsing {

// What was read of one op's dictionary. The views point into the input.
struct DictionaryRead {
  std::vector<std::pair<std::string_view, std::string_view>> entries;  // key, whole entry
  std::string_view key;       // of the entry being read
  std::string_view text;      // the whole dictionary; empty: the op has none
  std::string_view distText;  // op_dist_attr's value; empty: none
  std::string_view knownText;             // text was recognised: its interned copy
  const OpDistAttr* knownDist = nullptr;  // distText was recognised: what it reads as
  std::string_view distSharedText;  // distText was read by an earlier op: its stable copy (distReadFrom)
  bool verbatim = false;  // text was in Paddle's form, so interned as read

  void reset() {
    entries.clear();
    text = distText = knownText = distSharedText = {};
    knownDist = nullptr;
    verbatim = false;
  }
};

// The text an op keeps for the dictionary `read` (interned in `strings`):
// the memo's copy when it was recognised, `{}` when the op has none, the
// text as read when it is in Paddle's form (`read.verbatim` set: joined
// without spaces, each key once, sorted or in a 2023 printer's hash order),
// else the entries sorted by key and joined without spaces, as Paddle prints
// them. `read.entries` are left sorted by key (stably: a repeated key
// follows its first).
std::string_view keptDictionary(DictionaryRead& read, StringPool& strings);

// The memo of one parse: the last few dictionaries and op_dist_attr values
// read on ops of each name, and every op_dist_attr text read so far.
class AttributeMemo {
 public:
  // recognise=false: nothing is recognised by comparing bytes, every
  // dictionary is read by the grammar (ParseOptions; the test that the memo
  // changes nothing). Equal op_dist_attr texts still share one OpDistAttr.
  explicit AttributeMemo(bool recognise) : recognise_(recognise) {}

  // The dictionary that starts `input`, if one lately read on an op named
  // `opName` is there byte for byte: fills `read` as reading it would have
  // (text, distText, knownText, knownDist) and returns its length; else 0.
  size_t recallDictionary(std::string_view opName, std::string_view input, DictionaryRead& read) const;
  // The same for the op_dist_attr value that starts `input` (distText, knownDist).
  size_t recallDist(std::string_view opName, std::string_view input, DictionaryRead& read) const;

  // The op_dist_attr any earlier op read from read.distText, or nullptr;
  // when found, read.distSharedText is that op's copy of the text (learn
  // then neither copies nor hashes it again).
  const OpDistAttr* distReadFrom(DictionaryRead& read) const;
  // Calls visit(text, attr) for every op_dist_attr text read so far.
  template <typename Visit>
  void forEachDist(Visit visit) const {
    distByText_.forEach(visit);
  }
  // Called once an op named `opName` (interned) is built from `read`:
  // `interned` is its dictionary as kept, `dist` what distText reads as.
  void learn(std::string_view opName, const DictionaryRead& read, std::string_view interned,
             const OpDistAttr* dist, StringPool& strings);

 private:
  struct Dict {
    std::string_view text;  // interned: outlives the input
    uint32_t distOffset = 0;
    uint32_t distSize = 0;  // 0: no op_dist_attr
    const OpDistAttr* dist = nullptr;
  };
  struct Dist {
    std::string_view text;  // outlives the input (inside interned attributes)
    const OpDistAttr* attr = nullptr;
  };
  static constexpr size_t kPerName = 4;  // ops of a name alternate between a few layouts
  struct PerName {
    Dict dicts[kPerName];
    Dist dists[kPerName];
    uint8_t nextDict = 0;  // the slot to replace next
    uint8_t nextDist = 0;
  };
  const PerName* find(std::string_view opName) const;

  bool recognise_;
  TextHashTable<PerName> byName_;
  TextHashTable<const OpDistAttr*> distByText_;
};

}  // namespace parsing

}  // namespace reshardctl
