#include "tool/temp_file_guard.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace reshardctl {

namespace {

enum SlotState : int { kFree = 0, kBusy = 1, kWatched = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr size_t kSlots = 8;
std::array<Slot, kSlots> gSlots;
struct sigaction gPrevious[std::size(kSignals)];
std::mutex gInstalling;

void onSignal(int signal) {
  for (Slot& slot : gSlots)
    if (slot.state.load() == kWatched) ::unlink(slot.path);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != signal) continue;
    // Back to what it was; the signal, blocked while this handler runs, is
    // delivered again when it returns.
    ::sigaction(signal, &gPrevious[i], nullptr);
    ::raise(signal);
  }
}

// Puts the handler in place for each signal where it is not, remembering what
// was there (checked on every watch(): a library may have set its own since).
void install() {
  std::lock_guard<std::mutex> lock(gInstalling);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    ::sigaction(kSignals[i], nullptr, &current);
    if (current.sa_handler == onSignal) continue;
    if (current.sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup: stays ignored
    gPrevious[i] = current;
    struct sigaction action {};
    action.sa_handler = onSignal;
    ::sigemptyset(&action.sa_mask);
    for (int other : kSignals) ::sigaddset(&action.sa_mask, other);
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

}  // namespace

int TempFileGuard::watch(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  install();
  for (size_t i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!gSlots[i].state.compare_exchange_strong(expected, kBusy)) continue;
    std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
    gSlots[i].state.store(kWatched);
    return static_cast<int>(i);
  }
  return -1;
}

void TempFileGuard::forget(int slot) {
  if (slot < 0) return;
  gSlots[static_cast<size_t>(slot)].state.store(kFree);
}

}  // namespace reshardctl
