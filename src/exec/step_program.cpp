#include "exec/step_program.h"

#include <algorithm>
#include <cmath>
#include <new>

#include <fmt/format.h>

#include "exec/cpu_executor.h"
#include "reshard/mesh_coords.h"
#include "reshard/reduce_op.h"

namespace reshardctl {

namespace {

using Group = std::vector<int64_t>;
using Shape = std::vector<int64_t>;

Shape extentsOf(const Box& box) {
  Shape extents(box.rank());
  for (size_t dim = 0; dim < box.rank(); ++dim) extents[dim] = std::max<int64_t>(box.extent(dim), 0);
  return extents;
}

// The smallest shape every box fits in: the padded block of a collective.
Shape paddedShape(const std::vector<Box>& boxes, size_t rank) {
  Shape padded(rank, 0);
  for (const Box& box : boxes)
    for (size_t dim = 0; dim < rank; ++dim) padded[dim] = std::max(padded[dim], std::max<int64_t>(box.extent(dim), 0));
  return padded;
}

// A block of shape `padded` whose origin is `at`'s first element.
Box anchored(const Box& at, const Shape& padded) {
  Box block{at.begin, at.begin};
  for (size_t dim = 0; dim < padded.size(); ++dim) block.end[dim] += padded[dim];
  return block;
}

Shape offsetIn(const Box& region, const Box& box) {
  Shape origin(region.rank());
  for (size_t dim = 0; dim < region.rank(); ++dim) origin[dim] = region.begin[dim] - box.begin[dim];
  return origin;
}

// A pack or unpack: box copies that together fill (or drain) one buffer.
struct Transfer {
  std::vector<BoxCopy> copies;
  int64_t units = 0;

  // Every block already sits where the other buffer has it: the copies would
  // move nothing, so the buffer can stand in for the other one.
  bool inPlace() const {
    return std::all_of(copies.begin(), copies.end(), [](const BoxCopy& copy) {
      return copy.contiguous() && copy.srcOffset == copy.dstOffset;
    });
  }
};

class Lowering {
 public:
  Lowering(const Step& step, const Shape& shape, DType dtype, const std::map<int64_t, Box>& boxes, int64_t elemBytes)
      : step_(step), shape_(shape), dtype_(dtype), boxes_(boxes), elemBytes_(elemBytes) {
    const ProcessMesh& mesh = step.to.mesh;
    for (int64_t position = 0; position < mesh.size(); ++position)
      targets_[processIdAt(mesh, position)] = meshCoord(mesh, position);
    program_.kind = step.kind;
  }

  StepProgram run() {
    if (step_.kind == StepKind::SendRecv) {
      sendRecv();
    } else {
      for (size_t index = 0; index < step_.groups.size(); ++index) lowerGroup(index, step_.groups[index]);
    }
    for (auto& [id, rank] : ranks_) program_.ranks.push_back(std::move(rank));
    return std::move(program_);
  }

 private:
  void lowerGroup(size_t index, const Group& group) {
    if (group.empty()) throw ExecutionError("a step has an empty group");
    switch (step_.kind) {
      case StepKind::AllReduce: allReduce(index, group); break;
      case StepKind::ReduceScatter: reduceScatter(index, group); break;
      case StepKind::AllGather: allGather(index, group); break;
      case StepKind::AllToAll: allToAll(index, group); break;
      case StepKind::Slice: slice(group); break;
      case StepKind::PartialInit: partialInit(group); break;
      case StepKind::Scale: scale(group); break;
      case StepKind::SendRecv: break;
    }
  }

  const Box& boxOf(int64_t id) const {
    auto found = boxes_.find(id);
    if (found == boxes_.end()) throw ExecutionError(fmt::format("process {} holds no piece", id));
    return found->second;
  }

  Box targetBox(int64_t id) const {
    auto found = targets_.find(id);
    if (found == targets_.end()) throw ExecutionError(fmt::format("process {} is not on the step's mesh", id));
    return localBox(shape_, step_.to, found->second);
  }

  RankProgram& rank(int64_t id) {
    auto found = ranks_.find(id);
    if (found != ranks_.end()) return found->second;
    RankProgram& program = ranks_[id];
    program.id = id;
    auto box = boxes_.find(id);
    program.holdsBefore = box != boxes_.end();
    if (program.holdsBefore) program.before = program.after = box->second;
    return program;
  }

  // Copies `region` from a buffer holding `from` (starting `fromBase` elements
  // in) to one holding `to` (starting `toBase` elements in).
  BoxCopy copyOf(const Box& region, const Box& from, int64_t fromBase, const Box& to, int64_t toBase) const {
    return makeBoxCopy(extentsOf(from), offsetIn(region, from), fromBase, extentsOf(to), offsetIn(region, to), toBase,
                       extentsOf(region), elemBytes_);
  }

  static void addCopies(std::vector<LocalOp>& ops, Slot dst, Slot src, const Transfer& transfer) {
    for (const BoxCopy& copy : transfer.copies) {
      if (copy.empty) continue;
      LocalOp op;
      op.kind = LocalOp::Kind::Copy;
      op.dst = dst;
      op.src = src;
      op.copy = copy;
      ops.push_back(op);
    }
  }

  // One collective call of `program` on group `comm`.
  static void addComm(RankProgram& program, CommKind kind, Slot send, Slot recv, int64_t count, size_t comm) {
    CommOp op;
    op.kind = kind;
    op.send = send;
    op.recv = recv;
    op.count = count;
    op.group = comm;
    program.comm.push_back(op);
  }

  static void addElementwise(std::vector<LocalOp>& ops, LocalOp::Kind kind, Slot slot, int64_t count,
                             double value = 0, int64_t divisor = 1) {
    if (count <= 0) return;
    LocalOp op;
    op.kind = kind;
    op.dst = slot;
    op.count = count;
    op.value = value;
    op.divisor = divisor;
    ops.push_back(op);
  }

  // The pieces of a reduction group must all cover one box.
  const Box& commonBox(const Group& group) const {
    const Box& first = boxOf(group.front());
    for (const int64_t id : group)
      if (!(boxOf(id) == first)) throw ExecutionError(fmt::format("process {} holds another box than its group", id));
    return first;
  }

  DeviceReduce reduceFor(const Group& group) {
    if (!step_.reduce) throw ExecutionError(fmt::format("{} without a reduce type", stepKindName(step_.kind)));
    program_.reduce = mapReduce(*step_.reduce, dtype_, static_cast<int64_t>(group.size()));
    return program_.reduce;
  }

  size_t addGroup(const Group& group) {
    program_.groups.push_back(group);
    return program_.groups.size() - 1;
  }

  // Leaves `target` in Next when it is a proper part of `box` (held in Cur).
  void keepPart(RankProgram& program, const Box& box, const Box& target, Slot holder) {
    program.after = target;
    if (target == box) {
      program.result = holder;
      return;
    }
    if (!contains(box, target)) throw ExecutionError("extracting a box outside the piece");
    Transfer keep;
    keep.copies.push_back(copyOf(target, box, 0, target, 0));
    addCopies(program.post, Slot::Next, holder, keep);
    program.nextElems = target.volume();
    program.result = Slot::Next;
  }

  void allReduce(size_t, const Group& group) {
    const Box box = commonBox(group);
    const DeviceReduce reduce = reduceFor(group);
    const size_t comm = addGroup(group);
    const int64_t count = box.volume();
    for (const int64_t id : group) {
      RankProgram& program = rank(id);
      if (reduce.logicalFirst) addElementwise(program.pre, LocalOp::Kind::Logical, Slot::Cur, count);
      if (count > 0) {
        addComm(program, CommKind::AllReduce, Slot::Cur, Slot::Cur, count, comm);  // in place
      }
      if (reduce.divideBy > 0) addElementwise(program.post, LocalOp::Kind::Divide, Slot::Cur, count, 0, reduce.divideBy);
      keepPart(program, box, targetBox(id), Slot::Cur);
    }
  }

  void reduceScatter(size_t, const Group& group) {
    const Box box = commonBox(group);
    const DeviceReduce reduce = reduceFor(group);
    const size_t comm = addGroup(group);
    const auto n = static_cast<int64_t>(group.size());
    std::vector<Box> chunks;
    for (const int64_t id : group) {
      chunks.push_back(targetBox(id));
      if (!contains(box, chunks.back())) throw ExecutionError("reduce_scatter: a chunk lies outside the piece");
    }
    const Shape padded = paddedShape(chunks, box.rank());
    const int64_t block = elementCount(padded);
    Transfer pack;  // the same for every member: they all hold `box`
    for (size_t j = 0; j < chunks.size(); ++j)
      pack.copies.push_back(copyOf(chunks[j], box, 0, anchored(chunks[j], padded), static_cast<int64_t>(j) * block));
    const bool packInPlace = pack.inPlace() && n * block == box.volume();
    const bool uneven = std::any_of(chunks.begin(), chunks.end(), [&](const Box& c) { return c.volume() != block; });
    for (size_t i = 0; i < group.size(); ++i) {
      RankProgram& program = rank(group[i]);
      if (reduce.logicalFirst) addElementwise(program.pre, LocalOp::Kind::Logical, Slot::Cur, box.volume());
      Slot send = Slot::Cur;
      if (!packInPlace) {
        send = Slot::Send;
        program.sendElems = n * block;
        // Padding is reduced and dropped; zeros keep it defined.
        if (uneven) addElementwise(program.pre, LocalOp::Kind::Fill, Slot::Send, n * block, 0.0);
        addCopies(program.pre, Slot::Send, Slot::Cur, pack);
      }
      if (block > 0) {
        addComm(program, CommKind::ReduceScatter, send, Slot::Recv, block, comm);
        program.recvElems = block;
      }
      if (reduce.divideBy > 0) addElementwise(program.post, LocalOp::Kind::Divide, Slot::Recv, block, 0, reduce.divideBy);
      unpackInto(program, chunks[i], {copyOf(chunks[i], anchored(chunks[i], padded), 0, chunks[i], 0)});
    }
  }

  // Finishes a rank whose new piece `target` is assembled from Recv by `copies`.
  void unpackInto(RankProgram& program, const Box& target, std::vector<BoxCopy> copies) {
    Transfer unpack;
    unpack.copies = std::move(copies);
    program.after = target;
    if (unpack.inPlace()) {
      program.result = Slot::Recv;
      program.recvElems = std::max(program.recvElems, target.volume());
      return;
    }
    addCopies(program.post, Slot::Next, Slot::Recv, unpack);
    program.nextElems = target.volume();
    program.result = Slot::Next;
  }

  static void checkCovered(const Box& target, const std::vector<Box>& parts) {
    int64_t covered = 0;
    for (const Box& part : parts) covered += part.volume();
    if (covered != target.volume())
      throw ExecutionError(fmt::format("the new piece would receive {} elements for {} places", covered, target.volume()));
  }

  void allGather(size_t, const Group& group) {
    const size_t comm = addGroup(group);
    const auto n = static_cast<int64_t>(group.size());
    std::vector<Box> pieces;
    for (const int64_t id : group) pieces.push_back(boxOf(id));
    const Shape padded = paddedShape(pieces, pieces.front().rank());
    const int64_t block = elementCount(padded);
    for (size_t i = 0; i < group.size(); ++i) {
      RankProgram& program = rank(group[i]);
      Transfer pack;
      pack.copies.push_back(copyOf(pieces[i], pieces[i], 0, anchored(pieces[i], padded), 0));
      Slot send = Slot::Cur;
      // A shorter piece cannot stand in for its block: NCCL reads `block` elements.
      if (!(pack.inPlace() && pieces[i].volume() == block)) {
        send = Slot::Send;
        program.sendElems = block;
        addCopies(program.pre, Slot::Send, Slot::Cur, pack);
      }
      if (block > 0) {
        addComm(program, CommKind::AllGather, send, Slot::Recv, block, comm);
        program.recvElems = n * block;
      }
      const Box target = targetBox(group[i]);
      std::vector<BoxCopy> copies;
      std::vector<Box> parts;
      for (size_t j = 0; j < pieces.size(); ++j) {
        parts.push_back(intersect(pieces[j], target));
        copies.push_back(copyOf(parts.back(), anchored(pieces[j], padded), static_cast<int64_t>(j) * block, target, 0));
      }
      checkCovered(target, parts);
      unpackInto(program, target, std::move(copies));
    }
  }

  void allToAll(size_t, const Group& group) {
    const size_t comm = addGroup(group);
    const size_t n = group.size();
    std::vector<Box> pieces, targets;
    for (const int64_t id : group) {
      pieces.push_back(boxOf(id));
      targets.push_back(targetBox(id));
    }
    // parts[i][j]: what member i sends member j.
    std::vector<std::vector<Box>> parts(n);
    std::vector<Box> all;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) all.push_back(parts[i].emplace_back(intersect(pieces[i], targets[j])));
    const Shape padded = paddedShape(all, pieces.front().rank());
    const int64_t block = elementCount(padded);
    for (size_t i = 0; i < n; ++i) {
      RankProgram& program = rank(group[i]);
      Transfer pack;
      for (size_t j = 0; j < n; ++j)
        pack.copies.push_back(
            copyOf(parts[i][j], pieces[i], 0, anchored(parts[i][j], padded), static_cast<int64_t>(j) * block));
      Slot send = Slot::Cur;
      if (!(pack.inPlace() && static_cast<int64_t>(n) * block == pieces[i].volume())) {
        send = Slot::Send;
        program.sendElems = static_cast<int64_t>(n) * block;
        addCopies(program.pre, Slot::Send, Slot::Cur, pack);
      }
      if (block > 0) {
        addComm(program, CommKind::AllToAll, send, Slot::Recv, block, comm);
        program.recvElems = static_cast<int64_t>(n) * block;
      }
      std::vector<BoxCopy> copies;
      std::vector<Box> received;
      for (size_t k = 0; k < n; ++k) {
        received.push_back(parts[k][i]);
        copies.push_back(copyOf(parts[k][i], anchored(parts[k][i], padded), static_cast<int64_t>(k) * block,
                                targets[i], 0));
      }
      checkCovered(targets[i], received);
      unpackInto(program, targets[i], std::move(copies));
    }
  }

  void slice(const Group& group) {
    for (const int64_t id : group) {
      RankProgram& program = rank(id);
      const Box box = boxOf(id);
      // A local step: the copy goes before the (empty) NCCL group.
      keepPart(program, box, targetBox(id), Slot::Cur);
      std::move(program.post.begin(), program.post.end(), std::back_inserter(program.pre));
      program.post.clear();
    }
  }

  void partialInit(const Group& group) {
    if (!step_.reduce) throw ExecutionError("partial_init without a reduce type");
    const ReduceType type = *step_.reduce;
    const double identity = reduceIdentity(type, dtype_);
    for (size_t member = 0; member < group.size(); ++member) {
      RankProgram& program = rank(group[member]);
      const Box box = boxOf(group[member]);
      if (step_.fromTensorDim >= 0) {
        // Keep the own chunk inside an otherwise identity-filled whole piece.
        const Box target = targetBox(group[member]);
        program.after = target;
        if (target == box) continue;
        program.nextElems = target.volume();
        program.result = Slot::Next;
        addElementwise(program.pre, LocalOp::Kind::Fill, Slot::Next, target.volume(), identity);
        Transfer own;
        own.copies.push_back(copyOf(intersect(box, target), box, 0, target, 0));
        addCopies(program.pre, Slot::Next, Slot::Cur, own);
      } else if (member > 0 && type != ReduceType::Avg) {
        addElementwise(program.pre, LocalOp::Kind::Fill, Slot::Cur, box.volume(), identity);
      }
    }
  }

  // Every rank scales its own piece in place by the step's factor: times n, or
  // divided by n (n a power of two, so both are exact: transition.h).
  void scale(const Group& group) {
    const bool multiply = step_.scale >= 1;
    const auto n = static_cast<int64_t>(std::llround(multiply ? step_.scale : 1 / step_.scale));
    for (const int64_t id : group)
      addElementwise(rank(id).pre, multiply ? LocalOp::Kind::Multiply : LocalOp::Kind::Divide, Slot::Cur,
                     boxOf(id).volume(), 0, n);
  }

  // A send_recv's destinations build their new piece in Next; processes off
  // the destination mesh keep nothing. The destinations, ascending.
  std::vector<int64_t> prepareDestinations() {
    std::vector<int64_t> ids;
    for (const auto& [id, coord] : targets_) {
      RankProgram& program = rank(id);
      program.after = localBox(shape_, step_.to, coord);
      program.nextElems = program.after.volume();
      program.result = Slot::Next;
      ids.push_back(id);
    }
    for (const auto& [id, box] : boxes_)
      if (!targets_.contains(id)) rank(id).keeps = false;
    return ids;
  }

  // The sender's side of a [source, destination] pair: `part` of its piece,
  // straight out of the piece where it is contiguous there, else packed.
  void addSend(int64_t source, int64_t destination, const Box& part) {
    RankProgram& sender = rank(source);
    CommOp send;
    send.kind = CommKind::Send;
    send.peer = destination;
    send.count = part.volume();
    const BoxCopy read = copyOf(part, boxOf(source), 0, part, sender.sendElems);
    if (read.contiguous()) {
      send.send = Slot::Cur;
      send.sendOffset = read.srcOffset;
    } else {
      send.send = Slot::Send;
      send.sendOffset = sender.sendElems;
      sender.sendElems += send.count;
      addCopies(sender.pre, Slot::Send, Slot::Cur, Transfer{{read}, send.count});
    }
    sender.comm.push_back(send);
  }

  // A send_recv that reduces on arrival (reshard/reduce_on_arrival.h): every
  // part lands whole in the receive buffer; the parts of one box (one from
  // each partial piece) are combined into the first in pair order (the order
  // the reference reduces in; Combine, after 0/1 for ANY/ALL), which is then
  // copied to its place in the new piece. The meshes share no process.
  void sendRecvReducing() {
    const DeviceReduce reduce = mapReduce(*step_.reduce, dtype_, 2);
    if (reduce.divideBy > 0) throw ExecutionError("an AVG partial is never reduced on arrival");
    std::map<int64_t, std::vector<std::pair<Box, int64_t>>> arrived;  // destination -> (box, offset of its sum)
    for (const int64_t id : prepareDestinations()) arrived[id];
    for (const Group& pair : step_.groups) {
      if (pair.size() != 2 || pair[0] == pair[1] || !targets_.contains(pair[1]))
        throw ExecutionError("a send_recv that reduces on arrival has a pair within one process or off its mesh");
      const Box part = intersect(boxOf(pair[0]), rank(pair[1]).after);
      if (part.empty()) continue;
      addSend(pair[0], pair[1], part);
      RankProgram& receiver = rank(pair[1]);
      CommOp recv;
      recv.kind = CommKind::Recv;
      recv.peer = pair[0];
      recv.count = part.volume();
      recv.recv = Slot::Recv;
      recv.recvOffset = receiver.recvElems;
      receiver.recvElems += recv.count;
      receiver.comm.push_back(recv);
      if (reduce.logicalFirst) {
        addElementwise(receiver.post, LocalOp::Kind::Logical, Slot::Recv, recv.count);
        receiver.post.back().offset = recv.recvOffset;
      }
      auto& sums = arrived[pair[1]];
      auto same = std::find_if(sums.begin(), sums.end(), [&](const auto& sum) { return sum.first == part; });
      if (same == sums.end()) {
        sums.emplace_back(part, recv.recvOffset);
        continue;
      }
      LocalOp combine;
      combine.kind = LocalOp::Kind::Combine;
      combine.dst = combine.src = Slot::Recv;
      combine.offset = same->second;
      combine.srcOffset = recv.recvOffset;
      combine.count = recv.count;
      combine.reduce = reduce.op;
      receiver.post.push_back(combine);
    }
    for (const auto& [id, sums] : arrived) {
      RankProgram& receiver = rank(id);
      std::vector<Box> parts;
      for (const auto& [box, offset] : sums) {
        parts.push_back(box);
        addCopies(receiver.post, Slot::Next, Slot::Recv, Transfer{{copyOf(box, box, offset, receiver.after, 0)}, box.volume()});
      }
      checkCovered(receiver.after, parts);
    }
  }

  void sendRecv() {
    if (step_.reduce) return sendRecvReducing();
    std::map<int64_t, std::vector<Box>> received;
    for (const int64_t id : prepareDestinations()) received[id];
    for (const Group& pair : step_.groups) {
      if (pair.size() != 2) throw ExecutionError("a send_recv group is not a [source, destination] pair");
      const int64_t source = pair[0];
      const int64_t destination = pair[1];
      const Box& from = boxOf(source);
      RankProgram& receiver = rank(destination);
      if (!targets_.contains(destination))
        throw ExecutionError(fmt::format("process {} is not on the destination mesh", destination));
      const Box to = receiver.after;
      const Box part = intersect(from, to);
      received[destination].push_back(part);
      if (part.empty()) continue;
      const int64_t count = part.volume();
      if (source == destination) {
        // NCCL would copy through its own buffers; a device copy is the same move.
        Transfer local;
        local.copies.push_back(copyOf(part, from, 0, to, 0));
        addCopies(receiver.pre, Slot::Next, Slot::Cur, local);
        continue;
      }
      addSend(source, destination, part);

      RankProgram& target = receiver;  // std::map references survive the insertions above
      CommOp recv;
      recv.kind = CommKind::Recv;
      recv.peer = source;
      recv.count = count;
      const BoxCopy write = copyOf(part, part, target.recvElems, to, 0);
      if (write.contiguous()) {  // receive straight into the new piece
        recv.recv = Slot::Next;
        recv.recvOffset = write.dstOffset;
      } else {
        recv.recv = Slot::Recv;
        recv.recvOffset = target.recvElems;
        target.recvElems += count;
        addCopies(target.post, Slot::Next, Slot::Recv, Transfer{{write}, count});
      }
      target.comm.push_back(recv);
    }
    for (const auto& [id, parts] : received) checkCovered(rank(id).after, parts);
  }

  const Step& step_;
  const Shape& shape_;
  DType dtype_;
  const std::map<int64_t, Box>& boxes_;
  int64_t elemBytes_;
  std::map<int64_t, MeshCoord> targets_;
  std::map<int64_t, RankProgram> ranks_;
  StepProgram program_;
};

}  // namespace

int64_t StepProgram::communicationBytes(int64_t elemBytes) const {
  int64_t elements = 0;
  for (const RankProgram& rank : ranks) {
    for (const CommOp& op : rank.comm) {
      const auto n = op.group < groups.size() ? static_cast<int64_t>(groups[op.group].size()) : 1;
      switch (op.kind) {
        case CommKind::AllReduce:
        case CommKind::AllGather:
        case CommKind::Send: elements += op.count; break;
        case CommKind::ReduceScatter:
        case CommKind::AllToAll: elements += n * op.count; break;
        case CommKind::Recv: break;
      }
    }
  }
  return elements * elemBytes;
}

StepProgram lowerStep(const Step& step, const std::vector<int64_t>& shape, DType dtype,
                      const std::map<int64_t, Box>& boxes, int64_t elemBytes) {
  return Lowering(step, shape, dtype, boxes, elemBytes).run();
}

int64_t stepCommunicationBytes(const Step& step, const std::vector<int64_t>& shape, DType dtype,
                               const std::map<int64_t, Box>& boxes) {
  try {
    const int64_t elemBytes = dtypeSize(dtype);
    return lowerStep(step, shape, dtype, boxes, elemBytes).communicationBytes(elemBytes);
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is never "no bytes" (support/failure.h)
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace reshardctl
