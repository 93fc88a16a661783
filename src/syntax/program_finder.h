// Finds the programs in a file that holds other lines too: a training log, a
// pass instrumentation's printout of one program per pass, a program pasted
// after a caption. One pass over the lines, nothing scanned twice, so a log of
// many programs or a million-op dump costs about one read.
//
// A program starts at a line that ends in `{` and is
//   - `{` alone,                                   (Program::Print)
//   - a label ending in `{`: `IR before lowering = {`, `after-apply-x_pass {`
//     (`std::cout << "IR before lowering = " << *prog`, FLAGS_print_ir), or
//   - `{` right after a module line `() = "builtin.module" ... -> `, which
//     then belongs to the program (Operation::Print on the module op);
// and the next line that is not empty is an op line, a `^` argument line or
// the closing `}`. A glog prefix (`I1130 10:00:01.123456 41234 file.cc:212] `)
// on the line that starts a message is not part of the program. The program
// ends at the line that closes its `{` (lines whose text starts with `}` close
// a block, lines ending in `{` open one).
//
// The label names the program: the one on its first line; else the banner of
// pass instrumentation right above it (paddle/pir/src/pass/ir_printing.cc:
// `===---===` lines around `IRPrinting on builtin.module after X pass`,
// detail::PrintHeader in paddle/pir/src/core/utils.cc); else a caption line
// just above that ends in ':' (`ForwardProgram is :`).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace reshardctl {

struct FoundProgram {
  size_t begin = 0;      // offset of its first byte: the module line's '(' or the '{'
  size_t end = 0;        // past its closing '}' (and that line's newline when the rest is blank)
  size_t line = 0;       // 1-based line of `begin`
  size_t endLine = 0;    // line of the closing '}' (the last line when not closed)
  std::string label;     // what names it; "" when nothing does
  std::string pass;      // the pass the label names ("build_cinn_pass"), or ""
  size_t opCount = 0;    // op lines, those inside regions included
  bool distributed = false;  // it has pd_dist types or op_dist_attr
  bool closed = true;        // false: the file ends before its closing '}'
};

// The whole text as one program, for text read with --fragment that holds no
// braced program (docs/format.md, "Fragments"): its op lines counted as a
// program's are. Labelled "(fragment)".
FoundProgram wholeTextAsFragment(std::string_view text);

// `scanned`, when given, is told every few MiB how far the scan has come, so
// the caller can let the pages behind it go (SourceFile::dropPages).
std::vector<FoundProgram> findPrograms(std::string_view text,
                                       const std::function<void(size_t)>& scanned = nullptr);

// Why `text` holds no program, in one line: its lines are op lines without
// braces (read them with --fragment), no line ends in '{', or no such line is
// followed by op lines. One pass over the text.
std::string whyNoProgram(std::string_view text);

// The pass a label names: "IRPrinting on builtin.module after X pass" and
// "IR before X Pass" give X, "after-apply-X" gives X; otherwise "".
std::string passNameOf(std::string_view label);

// Whether a label names the program as printed before its pass or after it
// ("... before X pass", "before-apply-X"; "after" alike), or neither.
enum class PassStage { None, Before, After };
PassStage passStageOf(std::string_view label);

// Where the message of a log line starts: past a glog prefix
// (`I1130 10:00:01.123456 41234 file.cc:212] `), else 0.
size_t glogPrefixLength(std::string_view line);

}  // namespace reshardctl
