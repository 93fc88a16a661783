// The differential test's own picture of a program: what the generator makes,
// the renderer prints in each dump generation, and the reference pass reads.
// Deliberately independent of src/: the reference must not share a line of
// logic with what it checks (docs/format.md and docs/passes.md are its sources).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace differential {

// The dump generations of docs/format.md ("Print eras").
enum class Gen { A, C, D, E };
inline constexpr Gen kAllGens[] = {Gen::A, Gen::C, Gen::D, Gen::E};
std::string_view genName(Gen gen);

// Paddle's ReduceType names, in enum order.
enum class Reduce { Sum, Max, Min, Product, Avg, Any, All };
std::string_view reduceName(Reduce reduce);
inline bool isLogical(Reduce reduce) { return reduce == Reduce::Any || reduce == Reduce::All; }

struct Mesh {
  std::vector<int64_t> shape;
  std::vector<int64_t> ids;  // row-major
  // Made by MergeMeshes for a reshard between two meshes: its one dim is
  // named "merged", so it equals no mesh a user made (dim names count).
  bool merged = false;
  friend bool operator==(const Mesh&, const Mesh&) = default;
};

// A mesh as a reader of one generation's text sees it: generation-A types
// and entries on another mesh than their op's print no process ids.
struct MeshView {
  std::vector<int64_t> shape;
  std::optional<std::vector<int64_t>> ids;
  bool merged = false;
};

// docs/format.md: a mesh known only by its shape matches any mesh of that
// shape; dim names (only "merged" is ever known) always count.
bool sameMesh(const MeshView& a, const MeshView& b);

// How a tensor is laid out: a mesh (index into ProgramModel::meshes), one mesh
// dim or -1 per tensor dim, partial mesh dims in printed order.
struct Dist {
  int mesh = 0;
  std::vector<int64_t> dims;
  std::vector<std::pair<int64_t, Reduce>> partials;
};

// A layout as a reader sees it (see MeshView).
struct DistView {
  MeshView mesh;
  std::vector<int64_t> dims;
  std::vector<std::pair<int64_t, Reduce>> partials;
};

// docs/format.md "Distribution": same mesh, same dims_mapping, same partial mesh
// dims with the same reduce types (in any printed order).
bool sameLayout(const DistView& a, const DistView& b);

struct TensorType {
  std::vector<int64_t> shape;
  std::string dtype;         // f32, f16, i32, i64, b
  std::optional<Dist> dist;  // none: a dense tensor
};

// An operand(i)/result(i) entry of op_dist_attr: `{null}` or a layout.
struct Entry {
  bool null = false;
  Dist dist;
};

struct OpDist {
  int mesh = 0;
  std::vector<Entry> operands;
  std::vector<Entry> results;
  int64_t chunkId = -1;  // printed from generation D on
};

enum class ValueKind { OpResult, BlockArg };

struct ValueModel {
  TensorType type;
  ValueKind kind = ValueKind::OpResult;
  int op = -1;     // the defining op (OpResult)
  int index = 0;   // result or argument number
};

enum class OpForm { Generic, If, While, Yield };

struct OpModel {
  std::string name;
  OpForm form = OpForm::Generic;
  std::vector<int> operands;  // value indices; -1 is <<NULL VALUE>>
  std::vector<int> results;   // value indices
  std::optional<OpDist> dist;
  std::string dataName;       // `name:"..."` of data ops
  std::string outputName;     // `output_name:"..."` of shadow_output ops
  std::vector<bool> stopGradient;  // `stop_gradient:[..]`, empty: none
  std::optional<int> opRole;       // generations C-E only
  std::vector<int> regions;        // block indices
  std::optional<uint32_t> debugId;
};

struct BlockModel {
  std::vector<int> args;  // value indices: a while body's, or the program's keyword arguments
  std::vector<int> ops;   // op indices
};

struct ProgramModel {
  uint64_t seed = 0;
  std::vector<Mesh> meshes;
  std::vector<ValueModel> values;
  std::vector<OpModel> ops;
  std::vector<BlockModel> blocks;  // blocks[0] is the program's body
  bool debugIds = false;           // every op prints ` [id:N]`
  bool placements = false;         // generations D/E print `placements:[..]`
  // blocks[0].args print as `^kw:%kwarg_<name>`: these names.
  std::vector<std::string> keywordNames;
};

// The ops in print order: each op, then the ops of its regions.
std::vector<int> opsInPrintOrder(const ProgramModel& program);

// The layout with its mesh's ids known.
DistView viewOf(const ProgramModel& program, const Dist& dist);

}  // namespace differential
