#include "passes/pass_runner.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "ir/diagnostics.h"
#include "ir/verifier.h"

namespace reshardctl {

namespace {

#ifdef NDEBUG
constexpr bool kDebugBuild = false;
#else
constexpr bool kDebugBuild = true;
#endif

bool verifyEachRequested() {
  const char* value = std::getenv("RESHARDCTL_VERIFY_EACH");
  return value != nullptr && std::string_view(value) == "1";
}

// The verifier's first complaint, or "" when it has none.
std::string verifierProblem(const Program& program) {
  DiagnosticEngine diagnostics;
  if (verifyProgram(program, diagnostics)) return {};
  return diagnostics.diagnostics().front().message;
}

}  // namespace

bool verifyEachPass() {
  static const bool enabled = kDebugBuild || verifyEachRequested();
  return enabled;
}

void verifyAfterPass(std::string_view pass, const Program& program) {
  if (std::string problem = checkGraph(program); !problem.empty())
    throw PassInvariantError(fmt::format("the {} pass broke the graph: {}", pass, problem));
  if (std::string problem = verifierProblem(program); !problem.empty())
    throw PassInvariantError(fmt::format("the {} pass left a program the verifier rejects: {}", pass, problem));
}

}  // namespace reshardctl
