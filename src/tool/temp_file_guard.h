// Removes this process's temporary output files when it is stopped by
// SIGINT, SIGTERM or SIGHUP (Ctrl-C, kill, a closed terminal), so an
// interrupted `apply -o out.ir` leaves no `.reshardctl-XXXXXX` behind. The
// handler does only what is async-signal-safe: it unlinks the registered
// paths (kept in fixed buffers) and raises the signal again under the
// disposition that was there before, so the process still dies of it.
#pragma once

#include <string>

namespace reshardctl {

class TempFileGuard {
 public:
  // Registers `path` for removal on a signal; returns a slot for forget(),
  // or -1 when the path is too long or every slot is taken (then a signal
  // leaves it behind, as before).
  static int watch(const std::string& path);
  // Stops watching a slot (after the file was renamed or removed).
  static void forget(int slot);
};

}  // namespace reshardctl
