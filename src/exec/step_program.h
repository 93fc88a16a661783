// A plan step lowered to what each rank does on a device: local ops (box copies,
// fills, elementwise fix-ups) before and after one group of NCCL calls. The GPU
// backend interprets this; so does a host emulation in the unit tests, which
// checks the lowering against the reference executor without a GPU. Everything
// about padding uneven pieces to equal NCCL counts and unpadding them lives here.
//
// Collectives need equal counts on every rank, so uneven pieces travel padded:
// a block of the padded shape P (the largest extent of any block, per dim) holds
// its piece at the block's origin. all_gather sends each rank's piece as one
// block; reduce_scatter sends one block per destination chunk; all_to_all one
// block per (source piece ∩ destination piece). Receivers copy the valid part of
// each block into their new piece. A pack or unpack whose blocks already sit
// where the piece has them (even splits of the outermost split dim) is skipped
// and the buffer itself becomes the piece.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "exec/box_copy.h"
#include "exec/device_reduce.h"
#include "reshard/local_box.h"
#include "reshard/plan.h"

namespace reshardctl {

// A rank's buffers during one step: its piece, the piece it builds, and the
// packed buffers it sends and receives.
enum class Slot : uint8_t { Cur, Next, Send, Recv };

struct LocalOp {
  // Combine: dst[offset + i] = reduce(dst[offset + i], src[srcOffset + i]) for
  // i < count, rounded to the element type (a send_recv that reduces on arrival).
  enum class Kind : uint8_t { Copy, Fill, Logical, Divide, Multiply, Combine };
  Kind kind = Kind::Copy;
  Slot dst = Slot::Next;
  Slot src = Slot::Cur;  // Copy only
  BoxCopy copy;          // Copy: offsets count from the slots' starts
  int64_t offset = 0;    // Fill, Logical, Divide, Multiply: the elements [offset, offset + count) of dst
  int64_t count = 0;
  double value = 0;      // Fill
  int64_t divisor = 1;   // Divide; Multiply: the factor
  int64_t srcOffset = 0;  // Combine: where the other operand starts in src
  DeviceReduceOp reduce = DeviceReduceOp::Sum;  // Combine
};

enum class CommKind : uint8_t { AllReduce, ReduceScatter, AllGather, AllToAll, Send, Recv };

struct CommOp {
  CommKind kind = CommKind::AllReduce;
  Slot send = Slot::Cur;
  int64_t sendOffset = 0;
  Slot recv = Slot::Recv;
  int64_t recvOffset = 0;
  // NCCL's count argument: all_reduce elements, reduce_scatter recvcount,
  // all_gather sendcount, all_to_all per-peer count, send/recv elements.
  int64_t count = 0;
  size_t group = 0;   // collectives: index into StepProgram::groups
  int64_t peer = -1;  // send/recv: the other process id (a rank of the world communicator)
};

struct RankProgram {
  int64_t id = -1;
  bool holdsBefore = true;  // false: a send_recv destination that held no piece
  Box before;
  Box after;
  int64_t nextElems = 0;  // sizes of the scratch slots, in elements
  int64_t sendElems = 0;
  int64_t recvElems = 0;
  std::vector<LocalOp> pre;   // before the step's NCCL group
  std::vector<CommOp> comm;   // inside it
  std::vector<LocalOp> post;  // after it
  Slot result = Slot::Cur;    // the slot holding the piece of `after`
  bool keeps = true;          // false: the process holds no piece afterwards
};

struct StepProgram {
  StepKind kind = StepKind::AllReduce;
  DeviceReduce reduce;                       // all_reduce, reduce_scatter
  std::vector<std::vector<int64_t>> groups;  // collectives: one communicator each, ranks in this order
  std::vector<RankProgram> ranks;            // by ascending process id; processes the step leaves alone are absent

  // Bytes all ranks hand to NCCL as send buffers, as nccl-tests counts them
  // (all_gather: sendcount, reduce_scatter and all_to_all: n blocks).
  int64_t communicationBytes(int64_t elemBytes) const;
};

// Lowers `step` for the pieces whose boxes are `boxes` (process id -> box).
// Throws ExecutionError where the reference executor would (a missing piece,
// group members with different boxes, a destination not covered exactly once).
StepProgram lowerStep(const Step& step, const std::vector<int64_t>& shape, DType dtype,
                      const std::map<int64_t, Box>& boxes, int64_t elemBytes);

// The bytes `step` hands to the communication primitives on pieces of
// `boxes` (communicationBytes of its lowering); 0 where the lowering rejects
// the step (the executor reports that).
int64_t stepCommunicationBytes(const Step& step, const std::vector<int64_t>& shape, DType dtype,
                               const std::map<int64_t, Box>& boxes);

}  // namespace reshardctl
