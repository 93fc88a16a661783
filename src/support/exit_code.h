// The process's exit statuses, in one place (README "Exit codes"). A command
// with several inputs exits with the worst (highest) of them, so the order of
// the values is part of their meaning.
#pragma once

namespace reshardctl {

enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,  // the program is malformed, or a check found something (diff: the programs differ)
  kExitUsage = 2,     // bad flags, unreadable input, unwritable output, out of memory, an internal error
  kExitSkipped = 77,  // a test found nothing to run on (ctest's SKIP_RETURN_CODE)
};

}  // namespace reshardctl
