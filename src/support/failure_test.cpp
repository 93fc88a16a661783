#include <doctest/doctest.h>

#include <new>
#include <stdexcept>

#include "support/failure.h"

namespace reshardctl {

namespace {

template <typename Throw>
Failure caught(Throw thrower) {
  try {
    thrower();
  } catch (...) {
    return currentFailure();
  }
  return {FailureKind::Internal, "nothing thrown"};
}

}  // namespace

TEST_CASE("every escaping exception becomes one Failure with a kind and its exit code") {
  const Failure usage = caught([] { throw Failure(FailureKind::Usage, "two inputs"); });
  CHECK(usage.kind == FailureKind::Usage);
  CHECK(usage.message == "two inputs");
  CHECK(exitCodeOf(usage.kind) == kExitUsage);

  const Failure memory = caught([] { throw std::bad_alloc(); });
  CHECK(memory.kind == FailureKind::OutOfMemory);  // never anything else
  CHECK(memory.message.rfind("out of memory: ", 0) == 0);
  CHECK(exitCodeOf(memory.kind) == kExitUsage);

  const Failure bug = caught([] { throw std::logic_error("oops"); });
  CHECK(bug.kind == FailureKind::Internal);
  CHECK(bug.message == "internal error: oops");

  CHECK(exitCodeOf(FailureKind::BadInput) == kExitBadInput);
  CHECK(exitCodeOf(FailureKind::Io) == kExitUsage);
}

}  // namespace reshardctl
