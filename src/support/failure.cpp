#include "support/failure.h"

#include <new>

namespace reshardctl {

ExitCode exitCodeOf(FailureKind kind) {
  switch (kind) {
    case FailureKind::BadInput: return kExitBadInput;
    case FailureKind::Usage:
    case FailureKind::Io:
    case FailureKind::OutOfMemory:
    case FailureKind::Internal: return kExitUsage;
  }
  return kExitUsage;
}

Failure currentFailure() {
  try {
    throw;
  } catch (const Failure& failure) {
    return failure;
  } catch (const std::bad_alloc&) {
    return {FailureKind::OutOfMemory,
            "out of memory: this run needs more memory than the system (or ulimit -v) allows"};
  } catch (const std::exception& e) {
    return {FailureKind::Internal, std::string("internal error: ") + e.what()};
  } catch (...) {
    return {FailureKind::Internal, "internal error: an exception of unknown type"};
  }
}

}  // namespace reshardctl
