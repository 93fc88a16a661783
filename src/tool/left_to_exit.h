// A program the run has finished with, left for the process's end to free
// where the run ends right after it. A large graph is hundreds of thousands
// of small heap blocks (dist attrs, types, blocks, the parse's chunks):
// freeing them one by one was ~30M instructions of apply's ~1,300M on the
// varied 100k-op bench, all on one thread after the output was committed,
// while the kernel takes the whole heap back at exit at once.
// A build with sanitizers frees it as usual, so LeakSanitizer still sees
// every block freed.
#pragma once

#include <memory>

#include "ir/ir.h"

namespace reshardctl {

// Takes `program` (nullptr: nothing) for the rest of the process. Only for
// the last program a command holds, just before it returns to main: memory
// held this way is never given back.
void leaveToExit(std::unique_ptr<Program> program);

}  // namespace reshardctl
