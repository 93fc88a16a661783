#include "syntax/parallel/chunk_stitch.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "ir/clone/program_join.h"
#include "support/text_hash_table.h"
#include "syntax/generation_detection.h"

namespace reshardctl::parsing {

namespace {

// Every chunk read cleanly, and its numbering continues the chunks before:
// the serial parse would have found the program numbered as Paddle numbers
// (results %0, %1, ... and arguments %arg_0, ... in order), so every name
// it defines is its own and no name is kept as read (keepNamesAsRead).
bool chunksAgree(const std::vector<std::unique_ptr<ParsedChunk>>& chunks, IndentStyle indent) {
  uint32_t nextResult = 0, nextArgument = 0;
  for (const auto& parsed : chunks) {
    if (parsed->failed) return false;
    const ChunkState& chunk = parsed->chunk;
    const ParseState& st = *parsed->state;
    if (chunk.firstResultNumber) {
      if (*chunk.firstResultNumber != nextResult) return false;
      nextResult = st.nextResultNumber;
    }
    if (chunk.firstArgNumber) {
      if (*chunk.firstArgNumber != nextArgument) return false;
      nextArgument = st.nextArgNumber;
    }
    if (chunk.unresolvedTaken != st.unresolved.size()) return false;  // a use not on an operand
  }
  return chunks.front()->state->program->indentStyle() == indent;
}

// Where each name is defined, over all chunks: numbered results by the
// range of numbers each chunk defines, other names by one table. A name
// defined twice is a redefinition the serial parse reports.
class ChunkNames {
 public:
  explicit ChunkNames(std::vector<std::unique_ptr<ParsedChunk>>& chunks) : chunks_(chunks) {}

  bool build() {
    for (size_t k = 0; k < chunks_.size(); ++k) {
      ParseState& st = *chunks_[k]->state;
      if (chunks_[k]->chunk.firstResultNumber) firstNumbers_.emplace_back(*chunks_[k]->chunk.firstResultNumber, k);
      for (auto& [name, binding] : st.named) {
        if (!named_.try_emplace(name, Owner{k, &binding}).second) return false;
      }
    }
    return true;
  }

  // The visible binding `name` has in a chunk before `chunk`; nullptr when
  // the serial parse reports the use (undefined, defined later, or inside
  // a nested block).
  const Binding* before(size_t chunk, std::string_view name) const {
    std::optional<Owner> owner = find(name);
    if (!owner || owner->chunk >= chunk || !owner->binding->visible) return nullptr;
    return owner->binding;
  }

 private:
  struct Owner {
    size_t chunk;
    const Binding* binding;
  };

  std::optional<Owner> find(std::string_view name) const {
    if (auto it = named_.find(name); it != named_.end()) return it->second;
    std::optional<uint32_t> number = numberOf(name);
    if (!number) return std::nullopt;
    auto after = std::upper_bound(firstNumbers_.begin(), firstNumbers_.end(), std::make_pair(*number, SIZE_MAX));
    if (after == firstNumbers_.begin()) return std::nullopt;
    size_t chunk = std::prev(after)->second;
    const Binding* binding = findBinding(*chunks_[chunk]->state, name, number);
    if (!binding) return std::nullopt;
    return Owner{chunk, binding};
  }

  std::vector<std::unique_ptr<ParsedChunk>>& chunks_;
  std::vector<std::pair<uint32_t, size_t>> firstNumbers_;  // (first %N, chunk), ascending
  std::unordered_map<std::string_view, Owner> named_;
};

// A name a chunk used and did not define is not defined later in the same
// chunk either (the serial parse: "used before its definition").
bool crossUsesUndefinedInChunk(ParseState& st) {
  return std::none_of(st.unresolved.begin(), st.unresolved.end(),
                      [&](const UnresolvedUse& use) { return findBinding(st, use.name) != nullptr; });
}

// Links chunk `k`'s uses of earlier chunks' values, in the order the serial
// parse created them, and checks each against its signature as that parse
// does (checkOperandType): a value still untyped (a while result or block
// argument) takes the first checked use's type; a type that differs is an
// error it reports, so the stitch gives up.
bool linkCrossUses(ParsedChunk& parsed, size_t k, const ChunkNames& names, const ProgramJoiner& joiner) {
  for (const CrossChunkUse& use : parsed.chunk.crossUses) {
    const Binding* binding = names.before(k, parsed.state->unresolved[use.unresolved].name);
    if (!binding) return false;
    Value* value = binding->value;
    if (use.typeChecked) {
      const Type* declared = joiner.joinedType(use.declared);
      if (value->type == pendingType()) {
        value->type = declared;
        value->dist = declared && declared->isDist() ? &declared->dist : nullptr;
      } else if (declared != value->type) {
        return false;
      }
    }
    use.op->setOperand(use.operand, value);
  }
  return true;
}

// The dist attrs the chunks made, each with the one the first chunk to make
// it made: op_dist_attrs by their text, results' dists (generation A's ids
// filled in, ParseState::resolvedCache) by their type's text and their
// mesh. A later chunk's is replaced by that one when its program is joined,
// so the joined program shares them as the serial parse does.
class FirstDists {
 public:
  ProgramJoiner::SameDists sameAs(const ParseState& chunk) {
    ProgramJoiner::SameDists same;
    chunk.attributeMemo.forEachDist([&](std::string_view text, const OpDistAttr* attr) {
      auto entry = opDists_.insert(text, attr);
      if (!entry.added && entry.value != attr) same.ofOps.emplace(attr, entry.value);
    });
    for (const auto& [key, dist] : chunk.resolvedCache) {
      auto [it, added] = resolved_.try_emplace(Resolved{key.type->text, key.mesh}, dist);
      if (!added && it->second != dist) same.ofValues.emplace(dist, it->second);
    }
    return same;
  }

 private:
  struct Resolved {
    std::string_view typeText;
    const ProcessMesh* mesh;
    bool operator==(const Resolved& other) const {
      return typeText == other.typeText && *mesh == *other.mesh && mesh->idsKnown == other.mesh->idsKnown;
    }
  };
  struct ResolvedHash {
    size_t operator()(const Resolved& r) const {
      size_t hash = hashText(r.typeText);
      for (int64_t id : r.mesh->processIds) hash = hash * 31 + static_cast<size_t>(id);
      return hash;
    }
  };
  TextHashTable<const OpDistAttr*> opDists_;
  std::unordered_map<Resolved, const TensorDistAttr*, ResolvedHash> resolved_;
};

DistWriteStyle generationOf(const std::vector<std::unique_ptr<ParsedChunk>>& chunks) {
  GenerationEvidence all;
  for (const auto& parsed : chunks) {
    GenerationEvidence one = generationEvidence(*parsed->state);
    all.dist.merge(one.dist);
    all.sawOpDistAttr = all.sawOpDistAttr || one.sawOpDistAttr;
    all.sawAttrPrefix = all.sawAttrPrefix || one.sawAttrPrefix;
    all.sawBareTensor = all.sawBareTensor || one.sawBareTensor;
  }
  return detectGeneration(all);
}

}  // namespace

std::unique_ptr<Program> stitchChunks(std::vector<std::unique_ptr<ParsedChunk>>& chunks, IndentStyle indent) {
  if (chunks.empty() || !chunksAgree(chunks, indent)) return nullptr;
  if (!chunks.front()->chunk.crossUses.empty()) return nullptr;  // undefined in the first chunk
  for (const auto& parsed : chunks) {
    if (!crossUsesUndefinedInChunk(*parsed->state)) return nullptr;
  }
  ChunkNames names(chunks);
  if (!names.build()) return nullptr;
  std::unique_ptr<Program> whole = std::move(chunks.front()->state->program);
  ProgramJoiner joiner(*whole);
  FirstDists firstDists;
  firstDists.sameAs(*chunks.front()->state);
  for (size_t k = 1; k < chunks.size(); ++k) {
    joiner.append(std::move(chunks[k]->state->program), firstDists.sameAs(*chunks[k]->state));
    if (!linkCrossUses(*chunks[k], k, names, joiner)) return nullptr;
  }
  whole->setDistStyle(generationOf(chunks));
  return whole;
}

}  // namespace reshardctl::parsing
