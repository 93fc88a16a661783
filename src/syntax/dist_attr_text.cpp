#include "syntax/dist_attr_text.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <tao/pegtl.hpp>

#include "grammar/dist_grammar.h"
#include "ir/diagnostics.h"
#include "support/text.h"
#include "syntax/parse_errors.h"

namespace reshardctl {

namespace pegtl = tao::pegtl;
namespace d = grammar::dist;

namespace {

constexpr size_t kMaxEntryGap = 1024;

// ---- reading ---------------------------------------------------------------

struct Field {
  size_t offset = 0;  // absolute
  size_t length = 0;
  bool seen = false;
};

// Everything the actions collect while one text is read.
struct ReadState {
  std::string_view text;
  size_t base = 0;  // absolute offset of text[0]

  // The tensor distribution being read (a type's, an entry's, a list element's).
  TensorDistAttr tensor;
  Field meshShape, processIds, dimsMapping;
  std::vector<Field> partialFields;
  int64_t pendingPartialDim = 0;

  // A type body.
  std::vector<int64_t> dims;
  std::string_view dtype;
  bool distributed = false;

  // An op_dist_attr.
  OpDistAttr op;
  Field opMeshShape, opMeshIds;
  bool entryIsResult = false;
  size_t entryIndex = 0;
  size_t entryOffset = 0;
  DistEntry entry;

  DistTextStyle style;

  size_t at(const char* p) const { return base + static_cast<size_t>(p - text.data()); }

  void resetTensor() {
    tensor = TensorDistAttr{};
    meshShape = processIds = dimsMapping = Field{};
    partialFields.clear();
  }
};

template <typename Input>
Field fieldOf(const ReadState& st, const Input& in) {
  return Field{st.at(in.begin()), in.size(), true};
}

std::vector<int64_t> readInts(const ReadState& st, std::string_view list, size_t offset) {
  std::vector<int64_t> values;
  const char* p = list.data() + 1;  // past '['
  const char* end = list.data() + list.size() - 1;
  while (p < end) {
    int64_t value = 0;
    auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc()) {
      size_t at = offset + static_cast<size_t>(p - list.data());
      throw InputError{at, static_cast<size_t>(next - p) + 1, "integer out of range"};
    }
    values.push_back(value);
    p = next;
    if (p < end && *p == ',') ++p;
  }
  (void)st;
  return values;
}

// `[1,2,3]`, appended: the writers below run for every op a pass makes.
void appendInts(std::string& out, const std::vector<int64_t>& values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    appendDecimal(out, values[i]);
  }
  out += ']';
}

std::string joinInts(const std::vector<int64_t>& values) {
  std::string out;
  appendInts(out, values);
  return out;
}

void checkMesh(const ProcessMesh& mesh, const Field& shapeField, const Field& idsField) {
  for (int64_t dim : mesh.shape)
    if (dim <= 0)
      throw InputError{shapeField.offset, shapeField.length,
                       fmt::format("mesh shape {} has a dim that is not positive", joinInts(mesh.shape))};
  if (mesh.idsKnown && static_cast<int64_t>(mesh.processIds.size()) != mesh.size())
    throw InputError{idsField.offset, idsField.length,
                     fmt::format("process_ids has {} ids but the mesh shape {} holds {} processes",
                                 mesh.processIds.size(), joinInts(mesh.shape), mesh.size())};
  std::vector<int64_t> sorted = mesh.processIds;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw InputError{idsField.offset, idsField.length, "process_ids names one process twice"};
}

// The checks that need only the tensor's own fields and its mesh.
void checkTensor(const ReadState& st) {
  const TensorDistAttr& t = st.tensor;
  const int ndim = t.mesh.ndim();
  std::vector<bool> used(static_cast<size_t>(ndim), false);
  for (int64_t meshDim : t.dimsMapping) {
    if (meshDim == -1) continue;
    if (meshDim < -1 || meshDim >= ndim)
      throw InputError{st.dimsMapping.offset, st.dimsMapping.length,
                       fmt::format("dims_mapping names mesh dim {}, but the mesh {} has {}",
                                   meshDim, joinInts(t.mesh.shape), plural(static_cast<size_t>(ndim), "dim"))};
    if (used[static_cast<size_t>(meshDim)])
      throw InputError{st.dimsMapping.offset, st.dimsMapping.length,
                       fmt::format("dims_mapping names mesh dim {} twice", meshDim)};
    used[static_cast<size_t>(meshDim)] = true;
  }
  std::vector<bool> partial(static_cast<size_t>(ndim), false);
  for (size_t i = 0; i < t.partials.size(); ++i) {
    const Field& where = st.partialFields[i];
    int64_t meshDim = t.partials[i].meshDim;
    if (meshDim < 0 || meshDim >= ndim)
      throw InputError{where.offset, where.length,
                       fmt::format("partial on mesh dim {}, but the mesh {} has {}", meshDim,
                                   joinInts(t.mesh.shape), plural(static_cast<size_t>(ndim), "dim"))};
    if (partial[static_cast<size_t>(meshDim)])
      throw InputError{where.offset, where.length,
                       fmt::format("partial on mesh dim {} twice", meshDim)};
    if (used[static_cast<size_t>(meshDim)])
      throw InputError{where.offset, where.length,
                       fmt::format("mesh dim {} is both split (dims_mapping) and partial", meshDim)};
    partial[static_cast<size_t>(meshDim)] = true;
  }
}

// An entry or list element is complete: settle its mesh, then check it.
void finishEntryTensor(ReadState& st) {
  TensorDistAttr& t = st.tensor;
  if (!st.meshShape.seen) {
    t.mesh = st.op.mesh;  // generation A: the entry lives on the op mesh
  } else {
    t.mesh.idsKnown = st.processIds.seen;
    checkMesh(t.mesh, st.meshShape, st.processIds);
  }
  if (st.processIds.seen) st.style.fullEntries = true;
  checkTensor(st);
}

template <typename Rule>
struct action : pegtl::nothing<Rule> {};

template <>
struct action<d::mesh_shape_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.meshShape = fieldOf(st, in);
    st.tensor.mesh.shape = readInts(st, in.string_view(), st.meshShape.offset);
  }
};

template <>
struct action<d::dims_mapping_key> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    if (in.string_view() == "dims_maping:") st.style.entryDimsMaping = true;
  }
};

template <>
struct action<d::placements_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.style.placements = true;
    st.tensor.placements = in.string();
  }
};

template <>
struct action<d::process_ids_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.processIds = fieldOf(st, in);
    st.tensor.mesh.processIds = readInts(st, in.string_view(), st.processIds.offset);
  }
};

template <>
struct action<d::dims_mapping_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.dimsMapping = fieldOf(st, in);
    st.tensor.dimsMapping = readInts(st, in.string_view(), st.dimsMapping.offset);
  }
};

template <>
struct action<d::partial_dim> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    std::string_view text = in.string_view();
    auto [next, ec] = std::from_chars(text.data(), text.data() + text.size(), st.pendingPartialDim);
    if (ec != std::errc()) throw InputError{st.at(in.begin()), in.size(), "integer out of range"};
    (void)next;
  }
};

template <>
struct action<d::reduce_name> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    std::optional<ReduceType> reduce = parseReduceType(in.string_view());
    if (!reduce)
      throw InputError{st.at(in.begin()), in.size(),
                       fmt::format("unknown reduce type '{}' (expected SUM, MAX, MIN, PRODUCT, AVG, "
                                   "ANY or ALL)",
                                   in.string_view())};
    st.tensor.partials.push_back(PartialDim{st.pendingPartialDim, *reduce});
  }
};

template <>
struct action<d::partial_field> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.partialFields.push_back(fieldOf(st, in));
  }
};

template <>
struct action<d::dim> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    int64_t value = 0;
    std::string_view text = in.string_view();
    auto [next, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc()) throw InputError{st.at(in.begin()), in.size(), "integer out of range"};
    (void)next;
    st.dims.push_back(value);
  }
};

template <>
struct action<d::dtype> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.dtype = in.string_view();
  }
};

template <>
struct action<d::type_dist> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    st.distributed = true;
  }
};

template <>
struct action<d::op_mesh_shape_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.opMeshShape = fieldOf(st, in);
    st.op.mesh.shape = readInts(st, in.string_view(), st.opMeshShape.offset);
  }
};

template <>
struct action<d::op_mesh_ids_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.opMeshIds = fieldOf(st, in);
    st.op.mesh.processIds = readInts(st, in.string_view(), st.opMeshIds.offset);
  }
};

template <>
struct action<d::op_mesh> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    checkMesh(st.op.mesh, st.opMeshShape, st.opMeshIds);
  }
};

template <>
struct action<d::operand_key> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.entryIsResult = false;
    st.entryOffset = st.at(in.begin());
  }
};

template <>
struct action<d::result_key> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    st.entryIsResult = true;
    st.entryOffset = st.at(in.begin());
  }
};

template <>
struct action<d::entry_index> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    std::string_view text = in.string_view();
    auto [next, ec] = std::from_chars(text.data(), text.data() + text.size(), st.entryIndex);
    // Paddle numbers entries 0, 1, ...; an index far past those read is not a
    // gap to fill with nulls (nor a reason to allocate for it).
    const std::vector<DistEntry>& entries = st.entryIsResult ? st.op.results : st.op.operands;
    if (ec != std::errc() || st.entryIndex > entries.size() + kMaxEntryGap)
      throw InputError{st.at(in.begin()), in.size(),
                       fmt::format("entry index {} is far past the {} entries before it", text, entries.size())};
    (void)next;
  }
};

template <>
struct action<d::entry_open> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    st.entry = DistEntry{};
    st.resetTensor();
  }
};

template <>
struct action<d::list_element_open> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    st.resetTensor();
  }
};

struct finishes_list_element {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    finishEntryTensor(st);
    st.entry.list.push_back(std::move(st.tensor));
  }
};
template <> struct action<d::list_element> : finishes_list_element {};
template <> struct action<d::bare_list_element> : finishes_list_element {};

template <>
struct action<d::bare_element_begin> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    st.resetTensor();
  }
};

template <>
struct action<d::list_entry> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    st.entry.kind = DistEntry::Kind::List;
  }
};

template <>
struct action<d::tensor_entry> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    // Generation C prints a missing entry as all-empty fields.
    bool empty = st.meshShape.seen && st.tensor.mesh.shape.empty() &&
                 st.tensor.mesh.processIds.empty() && st.tensor.dimsMapping.empty();
    if (empty) {
      st.style.fullEntries = true;
      return;
    }
    finishEntryTensor(st);
    st.entry.kind = DistEntry::Kind::Tensor;
    st.entry.tensor = std::move(st.tensor);
  }
};

template <>
struct action<d::entry> {
  template <typename Input>
  static void apply(const Input& /*in*/, ReadState& st) {
    std::vector<DistEntry>& entries = st.entryIsResult ? st.op.results : st.op.operands;
    if (entries.size() <= st.entryIndex) entries.resize(st.entryIndex + 1);
    st.entry.textOffset = static_cast<uint32_t>(st.entryOffset - st.base);
    entries[st.entryIndex] = std::move(st.entry);
  }
};

template <>
struct action<d::chunk_id_value> {
  template <typename Input>
  static void apply(const Input& in, ReadState& st) {
    std::string_view text = in.string_view();
    text.remove_prefix(text.find_first_of("-0123456789"));
    int64_t value = 0;
    auto [next, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc()) throw InputError{st.at(in.begin()), in.size(), "integer out of range"};
    (void)next;
    st.op.chunkId = value;
    st.style.chunkId = true;
  }
};

template <typename Rule>
void readWith(ReadState& st, std::string_view text, size_t offset) {
  st.text = text;
  st.base = offset;
  pegtl::memory_input<pegtl::tracking_mode::lazy> in(text.data(), text.size(), "");
  try {
    if (!pegtl::parse<Rule, action, error_control>(in, st))
      throw InputError{offset, 1, "malformed distribution attribute"};
  } catch (const pegtl::parse_error& e) {
    size_t at = offset + e.positions().front().byte;
    throw InputError{at, 1, std::string(e.message())};
  }
}

// ---- writing -----------------------------------------------------------------

// The writers append to one string: with fmt::format and a string per
// piece, writing op_dist_attr text was 9% of `apply`'s instructions on the
// varied 10k-op program (one op_dist_attr and two types per reshard).
void appendPartials(std::string& out, const TensorDistAttr& dist, const char* firstSeparator) {
  for (size_t i = 0; i < dist.partials.size(); ++i) {
    out += i == 0 ? firstSeparator : ",";
    out += "partial(";
    appendDecimal(out, dist.partials[i].meshDim);
    out += ',';
    out += reduceTypeName(dist.partials[i].reduce);
    out += ')';
  }
}

bool fromGenerationD(DistGeneration generation) {
  return generation == DistGeneration::D || generation == DistGeneration::E;
}

// A TensorDistAttribute as Paddle prints it in a type, and from generation C
// on also in an entry. Generation A: dist_dialect.cc at silverling/paddle-paddle
// @2ce6c02; C: PaddlePaddle @977c9a2; D/E: PaddlePaddle @02a5e4e (placements
// after the partials, `, ` before each group).
void appendTensorDist(std::string& out, const TensorDistAttr& dist, const DistWriteStyle& style) {
  out += "mesh_shape:";
  appendInts(out, dist.mesh.shape);
  if (style.generation != DistGeneration::A) {
    out += ",process_ids:";
    appendInts(out, dist.mesh.processIds);
  }
  out += ",dims_mappings:";
  appendInts(out, dist.dimsMapping);
  appendPartials(out, dist, ", ");
  if (!fromGenerationD(style.generation)) return;
  if (!dist.placements.empty())
    out.append(", placements:").append(dist.placements);
  else if (style.placements && !dist.mesh.shape.empty())
    out.append(", placements:").append(dist.derivedPlacements());
}

// Generation A entry: `{[mesh_shape:[n],]dims_maping:[..][,partial(d,R)]}`;
// the mesh shape is printed only when the entry's mesh is not the op's
// (silverling/paddle-paddle @2ce6c02 dist_dialect.cc: `dist_attr.
// process_mesh_attr() != op_dist_attr.process_mesh_attr()`, attribute
// equality with dim names, see ProcessMesh). A merged op mesh therefore
// differs from both entries' meshes, even one with its shape and ids.
void appendTensorEntryA(std::string& out, const TensorDistAttr& t, const ProcessMesh& opMesh) {
  out += '{';
  // A mesh known only by its shape counts as the op mesh when the shapes
  // agree, as it does when distributions are compared.
  if (!(t.mesh == opMesh)) {
    out += "mesh_shape:";
    appendInts(out, t.mesh.shape);
    out += ',';
  }
  out += "dims_maping:";
  appendInts(out, t.dimsMapping);
  appendPartials(out, t, ",");
  out += '}';
}

// Generation A had no tensor-list entries; a list is written in the braced
// form this tool also reads: `{[{dims_maping:[..]},{..}]}`.
void appendEntryA(std::string& out, const DistEntry& entry, const ProcessMesh& opMesh) {
  if (entry.isNull()) {
    out += "{null}";
    return;
  }
  if (entry.kind == DistEntry::Kind::Tensor) return appendTensorEntryA(out, entry.tensor, opMesh);
  out += "{[";
  for (size_t i = 0; i < entry.list.size(); ++i) {
    if (i) out += ',';
    appendTensorEntryA(out, entry.list[i], opMesh);
  }
  out += "]}";
}

// Generations C-E: `os << op_dist_attr.operand(i)` goes through the generic
// attribute printer, so an entry is the type's dist text, a list is `[..]`
// joined by "," (elements without braces), and a missing optional input is
// the empty TensorDistAttribute seen in mid-2024 dumps.
void appendEntryFull(std::string& out, const DistEntry& entry, const DistWriteStyle& style) {
  switch (entry.kind) {
    case DistEntry::Kind::Null: out += "{mesh_shape:[],process_ids:[],dims_mappings:[]}"; return;
    case DistEntry::Kind::Tensor:
      out += '{';
      appendTensorDist(out, entry.tensor, style);
      out += '}';
      return;
    case DistEntry::Kind::List: break;
  }
  out += "{[";
  for (size_t i = 0; i < entry.list.size(); ++i) {
    if (i) out += ',';
    appendTensorDist(out, entry.list[i], style);
  }
  out += "]}";
}

void appendEntries(std::string& out, const char* kind, const std::vector<DistEntry>& entries,
                   const ProcessMesh& opMesh, const DistWriteStyle& style) {
  for (size_t i = 0; i < entries.size(); ++i) {
    out.append(",").append(kind).append("(");
    appendDecimal(out, static_cast<int64_t>(i));
    out += "):";
    if (style.generation == DistGeneration::A) appendEntryA(out, entries[i], opMesh);
    else appendEntryFull(out, entries[i], style);
  }
}

}  // namespace

TensorTypeBody readTensorTypeBody(std::string_view text, size_t offset, DistTextStyle* style) {
  ReadState st;
  readWith<d::tensor_type_body>(st, text, offset);
  if (style && st.distributed) {
    style->merge(st.style);
    (st.processIds.seen ? style->typeIds : style->typeWithoutIds) = true;
    if (st.tensor.placements.empty()) style->typeWithoutPlacements = true;
  }
  TensorTypeBody body;
  body.dims = std::move(st.dims);
  body.dtype = st.dtype;
  body.distributed = st.distributed;
  if (!st.distributed) return body;
  if (!st.meshShape.seen)
    throw InputError{offset, text.size(), "distributed tensor type without mesh_shape"};
  if (!st.dimsMapping.seen)
    throw InputError{offset, text.size(), "distributed tensor type without dims_mappings"};
  st.tensor.mesh.idsKnown = st.processIds.seen;
  checkMesh(st.tensor.mesh, st.meshShape, st.processIds);
  checkTensor(st);
  if (st.tensor.dimsMapping.size() != body.dims.size())
    throw InputError{st.dimsMapping.offset, st.dimsMapping.length,
                     fmt::format("dims_mappings has {} but the tensor has rank {}",
                                 plural(st.tensor.dimsMapping.size(), "entry", "entries"), body.dims.size())};
  body.dist = std::move(st.tensor);
  return body;
}

OpDistAttr readOpDistAttr(std::string_view text, size_t offset, DistTextStyle* style) {
  ReadState st;
  readWith<d::op_dist_attr>(st, text, offset);
  if (style) style->merge(st.style);
  return std::move(st.op);
}

std::string writeTypeDist(const TensorDistAttr& dist, const DistWriteStyle& style) {
  std::string out;
  appendTensorDist(out, dist, style);
  return out;
}

// OperationDistAttribute printing: generation A as in silverling/paddle-paddle
// @2ce6c02 dist_dialect.cc; C as in PaddlePaddle @977c9a2; D/E add
// `,chunk_id:N` after the last result entry (PaddlePaddle @02a5e4e). chunk_id
// defaults to -1, what OperationDistAttribute::get stores when none is given.
std::string writeOpDistAttr(const OpDistAttr& attr, const DistWriteStyle& style) {
  std::string out = "{mesh:{shape:";
  appendInts(out, attr.mesh.shape);
  out += ",process_ids:";
  appendInts(out, attr.mesh.processIds);
  out += '}';
  appendEntries(out, "operand", attr.operands, attr.mesh, style);
  appendEntries(out, "result", attr.results, attr.mesh, style);
  if (fromGenerationD(style.generation)) {
    out += ",chunk_id:";
    appendDecimal(out, attr.chunkId.value_or(-1));
  }
  out += '}';
  return out;
}

void DistTextStyle::merge(const DistTextStyle& other) {
  entryDimsMaping |= other.entryDimsMaping;
  fullEntries |= other.fullEntries;
  typeIds |= other.typeIds;
  typeWithoutIds |= other.typeWithoutIds;
  chunkId |= other.chunkId;
  placements |= other.placements;
  typeWithoutPlacements |= other.typeWithoutPlacements;
}

}  // namespace reshardctl
