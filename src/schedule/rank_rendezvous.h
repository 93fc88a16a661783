// The ranks' programs run together as their processes would, one at a time
// (a baton, so every run is the same run): each rank runs until its next
// communication call. A collective runs when every member of its
// communicator has arrived at a call on it; a recv when its sender's send has
// run (sends are eager here: they never wait, so a send/send cycle is
// schedule's finding, not this one's). When no rank can go on and some still
// wait, those waits would never end: each becomes a finding and its rank
// stops, instead of a hang. Each rank runs on a thread of its own, and at
// most kMaxRendezvousRanks ranks are run.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "interp/reshard_runner.h"
#include "interp/tensor.h"
#include "schedule/schedule.h"

namespace reshardctl {

inline constexpr size_t kMaxRendezvousRanks = 256;

// A call that cannot complete: a wait that never ends, or members that meet
// with calls that do not match.
struct RendezvousFinding {
  int64_t rank = 0;
  const CommCall* call = nullptr;
  std::string kind;  // "hang" | "collective"
  std::string message;
};

class RankRendezvous {
 public:
  RankRendezvous(const Schedule& schedule, ReshardRunner& runner) : schedule_(schedule), runner_(runner) {}

  // Runs `body(i)` for every rank of the schedule (i: its index), one at a
  // time; returns when all have ended, rethrowing the first exception a body
  // threw (a rank stopped by a finding ends quietly).
  void run(const std::function<void(size_t)>& body);

  // Rank `index` at `call` with `operand` (null for a call without one): the
  // call's result once it ran (nullopt for a send, a barrier or no operand).
  // A call whose operand is null (a value the run does not know: fed by an op
  // it does not simulate) still meets its peers: a send reaches its receiver,
  // whose result is then nullopt (unknown), and a collective runs when all its
  // members arrive, every member's result unknown where one operand is,
  // rather than a wait that never ends.
  std::optional<Tensor> communicate(size_t index, const CommCall& call, const Tensor* operand);

  const std::vector<RendezvousFinding>& findings() const { return findings_; }

 private:
  enum class State : uint8_t { Ready, Waiting, Done };
  struct Rank {
    State state = State::Ready;
    const CommCall* call = nullptr;  // while waiting
    const Tensor* operand = nullptr;
    std::optional<Tensor> result;
    bool stopped = false;  // a finding ended its wait
  };
  using Mailbox = std::tuple<int64_t, int64_t, int64_t>;  // ring, from, to

  void runRank(size_t index, const std::function<void(size_t)>& body);
  // Hands the baton to the next rank that can run; with none, the waiting ranks' findings.
  void passBaton(size_t from);
  void waitTurn(size_t index, std::unique_lock<std::mutex>& lock);
  void send(size_t index, const CommCall& call, const Tensor* operand);
  bool receive(size_t index, const CommCall& call);
  // Runs the collective when all its members wait at a call on its ring.
  void tryCollective(size_t index, const CommCall& call);
  void stopWaiting(size_t index, std::string kind, std::string message);
  std::string waitMessage(size_t index) const;

  const Schedule& schedule_;
  ReshardRunner& runner_;
  std::vector<Rank> ranks_;
  std::map<Mailbox, std::deque<std::optional<Tensor>>> mailboxes_;  // nullopt: an unknown value sent
  std::vector<RendezvousFinding> findings_;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable turn_;
  size_t active_ = 0;
};

}  // namespace reshardctl
