// SSA graph → text, exactly as Paddle's IrPrinter writes it (docs/format.md):
// values are numbered %0, %1, ... in the order they are first printed.
#pragma once

#include <cstddef>
#include <string>

#include "ir/ir.h"
#include "support/output_sink.h"

namespace reshardctl {

// Programs with fewer values print on one thread unless -j says otherwise:
// below this, starting threads costs more than they save (README, "Speed").
inline constexpr size_t kParallelPrintValues = 100000;

struct PrinterOptions {
  // A program read with a frame (a prefix on its lines, CRLF: text_frame.h)
  // prints with it; the first line's prefix is left out where the text
  // before the program is written already (a log written back).
  bool firstLinePrefix = true;
  // Threads: a large program's top-level ops print in pieces at once, with
  // the same bytes as on one thread. 0: as the run's -j says
  // (support/parallel_jobs.h).
  unsigned jobs = 0;
};

// Prints the whole program into `out` and flushes it; false if writing failed.
bool printProgram(const Program& program, OutputSink& out, const PrinterOptions& options = {});
std::string printProgramToString(const Program& program, const PrinterOptions& options = {});

// Numbers values as the printer does, for tools that name values in reports
// (e.g. "%9"): one walk, results by print order, block arguments apart.
class ValueNames {
 public:
  explicit ValueNames(const Program& program);
  std::string name(const Value* value) const;

 private:
  std::vector<uint32_t> numbers_;
};

}  // namespace reshardctl
