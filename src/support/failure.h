// The one way a run fails as a whole: a Failure thrown with its kind, caught
// in one place (tool/cli.cpp runCli), which reports its message and exits with
// the kind's code. What is not a Failure is classified there too: std::bad_alloc
// is out of memory, whatever else escaped is an internal error. So a catch of
// std::exception below runCli must let std::bad_alloc through (`catch (const
// std::bad_alloc&) { throw; }` first): out of memory is never another outcome.
//
// A finding about one input among several (a divergence, a parse error) is
// not a Failure: the run goes on with the next input, and that input's exit
// code joins the others'.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "support/exit_code.h"

namespace reshardctl {

enum class FailureKind {
  BadInput,     // the input is malformed
  Usage,        // flags or inputs that make no sense together
  Io,           // a file that cannot be read or written
  OutOfMemory,  // std::bad_alloc
  Internal,     // an exception nothing expected: a bug
};

struct Failure : std::exception {
  Failure(FailureKind failureKind, std::string text) : kind(failureKind), message(std::move(text)) {}
  const char* what() const noexcept override { return message.c_str(); }

  FailureKind kind;
  std::string message;  // as the user reads it, without "error: "
};

// The exit status a failure of `kind` ends the process with.
ExitCode exitCodeOf(FailureKind kind);

// The exception being handled, as a Failure (call inside a catch block):
// itself, out of memory for std::bad_alloc, an internal error for the rest.
Failure currentFailure();

}  // namespace reshardctl
