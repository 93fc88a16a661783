#include "schedule/rank_rendezvous.h"

#include <new>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedule/collective_data.h"

namespace reshardctl {

namespace {

// Thrown into a rank whose wait a finding ended: its run stops there.
struct StoppedRank {};

constexpr size_t kNobody = SIZE_MAX;

}  // namespace

void RankRendezvous::run(const std::function<void(size_t)>& body) {
  ranks_.assign(schedule_.ranks.size(), Rank{});
  if (ranks_.empty()) return;
  if (ranks_.size() > kMaxRendezvousRanks)
    throw std::length_error(fmt::format("{} ranks: at most {} are run together", ranks_.size(), kMaxRendezvousRanks));
  active_ = 0;
  std::vector<std::thread> threads;
  threads.reserve(ranks_.size());
  for (size_t i = 0; i < ranks_.size(); ++i) threads.emplace_back([this, i, &body] { runRank(i, body); });
  for (std::thread& thread : threads) thread.join();
  if (error_) std::rethrow_exception(error_);
}

void RankRendezvous::runRank(size_t index, const std::function<void(size_t)>& body) {
  {
    std::unique_lock lock(mutex_);
    waitTurn(index, lock);
  }
  try {
    body(index);
  } catch (const StoppedRank&) {
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
  std::lock_guard lock(mutex_);
  ranks_[index].state = State::Done;
  passBaton(index);
}

void RankRendezvous::waitTurn(size_t index, std::unique_lock<std::mutex>& lock) {
  turn_.wait(lock, [&] { return active_ == index; });
}

void RankRendezvous::passBaton(size_t from) {
  const size_t n = ranks_.size();
  for (;;) {
    for (size_t step = 1; step <= n; ++step) {
      const size_t next = (from + step) % n;
      if (ranks_[next].state == State::Ready) {
        active_ = next;
        turn_.notify_all();
        return;
      }
    }
    bool waiting = false;
    for (size_t i = 0; i < n; ++i)
      if (ranks_[i].state == State::Waiting) {
        waiting = true;
        stopWaiting(i, "hang", waitMessage(i));
      }
    if (!waiting) {
      active_ = kNobody;
      turn_.notify_all();
      return;
    }
  }
}

std::string RankRendezvous::waitMessage(size_t index) const {
  const CommCall& call = *ranks_[index].call;
  const int64_t rank = schedule_.ranks[index].rank;
  std::vector<std::string> others;
  if (isPointToPoint(call.kind)) {
    return fmt::format("{} on rank {} waits forever: rank {} never sends it a tensor on ring {}", call.op, rank,
                       call.peer, call.ring);
  }
  for (int64_t member : schedule_.communicators.at(call.ring).ranks) {
    auto found = schedule_.indexOfRank.find(member);
    if (found == schedule_.indexOfRank.end()) {
      others.push_back(fmt::format("rank {} has no program", member));
      continue;
    }
    const Rank& other = ranks_[found->second];
    if (other.state == State::Done) others.push_back(fmt::format("rank {} has ended", member));
    else if (other.call && other.call->ring != call.ring)
      others.push_back(fmt::format("rank {} waits at {} on ring {}", member, other.call->op, other.call->ring));
  }
  return fmt::format("{} on rank {} waits forever on ring {}: {}", call.op, rank, call.ring, fmt::join(others, ", "));
}

void RankRendezvous::stopWaiting(size_t index, std::string kind, std::string message) {
  Rank& rank = ranks_[index];
  findings_.push_back({schedule_.ranks[index].rank, rank.call, std::move(kind), std::move(message)});
  rank.state = State::Ready;
  rank.stopped = true;
}

std::optional<Tensor> RankRendezvous::communicate(size_t index, const CommCall& call, const Tensor* operand) {
  std::unique_lock lock(mutex_);
  Rank& self = ranks_[index];
  if (call.kind == CommKind::Send) {
    send(index, call, operand);
    return std::nullopt;
  }
  self.state = State::Waiting;
  self.call = &call;
  self.operand = operand;
  self.result.reset();
  const bool done = call.kind == CommKind::Recv ? receive(index, call) : (tryCollective(index, call), self.state == State::Ready);
  if (!done) {
    passBaton(index);
    waitTurn(index, lock);
  }
  self.call = nullptr;
  self.operand = nullptr;
  if (self.stopped) throw StoppedRank{};
  return std::move(self.result);
}

void RankRendezvous::send(size_t index, const CommCall& call, const Tensor* operand) {
  if (call.peer < 0) return;  // schedule reports an unresolved peer
  std::optional<Tensor> sent;
  if (operand != nullptr) sent = *operand;
  const int64_t from = schedule_.ranks[index].rank;
  auto peer = schedule_.indexOfRank.find(call.peer);
  if (peer != schedule_.indexOfRank.end()) {
    Rank& receiver = ranks_[peer->second];
    if (receiver.state == State::Waiting && receiver.call->kind == CommKind::Recv && receiver.call->peer == from &&
        receiver.call->ring == call.ring) {
      receiver.result = std::move(sent);
      receiver.state = State::Ready;
      return;
    }
  }
  mailboxes_[{call.ring, from, call.peer}].push_back(std::move(sent));
}

bool RankRendezvous::receive(size_t index, const CommCall& call) {
  auto box = mailboxes_.find({call.ring, call.peer, schedule_.ranks[index].rank});
  if (box == mailboxes_.end() || box->second.empty()) return false;
  Rank& self = ranks_[index];
  self.result = std::move(box->second.front());
  box->second.pop_front();
  self.state = State::Ready;
  return true;
}

void RankRendezvous::tryCollective(size_t index, const CommCall& call) {
  const std::vector<int64_t>& members = schedule_.communicators.at(call.ring).ranks;
  std::vector<size_t> arrived;
  std::map<int64_t, const Tensor*> operands;
  for (int64_t member : members) {
    auto found = schedule_.indexOfRank.find(member);
    if (found == schedule_.indexOfRank.end()) return;  // never arrives: a hang once nothing else can run
    const Rank& other = ranks_[found->second];
    if (other.state != State::Waiting || other.call->ring != call.ring || isPointToPoint(other.call->kind)) return;
    arrived.push_back(found->second);
    if (other.operand) operands[member] = other.operand;
  }
  for (size_t i : arrived)
    if (!sameCollective(*ranks_[i].call, call)) {
      const std::string message =
          fmt::format("ring {} meets with {} on rank {} and {} on rank {}: the calls do not match", call.ring,
                      callSignature(call), schedule_.ranks[index].rank, callSignature(*ranks_[i].call),
                      schedule_.ranks[i].rank);
      for (size_t j : arrived) stopWaiting(j, "collective", message);
      return;
    }
  // A member's unknown (or absent) operand leaves every member's result unknown.
  std::map<int64_t, Tensor> results;
  if (operands.size() == members.size()) {
    try {
      results = runCollective(call, members, operands, runner_);
    } catch (const BackendError&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {  // CollectiveError, or pieces the executor cannot move
      for (size_t j : arrived) stopWaiting(j, "collective", fmt::format("ring {}: {}", call.ring, e.what()));
      return;
    }
  }
  for (size_t i : arrived) {
    Rank& member = ranks_[i];
    auto result = results.find(schedule_.ranks[i].rank);
    if (result != results.end()) member.result = std::move(result->second);
    member.state = State::Ready;
  }
}

}  // namespace reshardctl
