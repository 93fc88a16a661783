// mlir-opt -verify-each for our passes: after a pass, the graph checker
// (checkGraph: use lists, block links) and the verifier (dist attrs against
// the values they describe) run on what the pass left. They run in debug
// builds and wherever RESHARDCTL_VERIFY_EACH=1 (the test suite sets it for
// every test); a release run of apply pays nothing for them.
#pragma once

#include <stdexcept>
#include <string_view>

#include "ir/ir.h"

namespace reshardctl {

// A pass left the graph broken: a bug in the pass, not in its input, so it
// reaches the top level as an internal error.
class PassInvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// True in debug builds, or when RESHARDCTL_VERIFY_EACH is "1" (read once).
bool verifyEachPass();

// Throws PassInvariantError, naming `pass` and the broken invariant, when
// `program` breaks one.
void verifyAfterPass(std::string_view pass, const Program& program);

// Runs `pass(program)`, then checks the graph when verifyEachPass().
template <typename Pass>
auto runPass(std::string_view name, Program& program, Pass&& pass) {
  auto result = pass(program);
  if (verifyEachPass()) verifyAfterPass(name, program);
  return result;
}

}  // namespace reshardctl
