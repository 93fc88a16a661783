// Helpers shared by the *_test.cpp files (not part of the tool).
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "ir/diagnostics.h"
#include "ir/source.h"
#include "ir/verifier.h"
#include "syntax/parser.h"

namespace reshardctl::testing {

// A parsed program with the source and diagnostics it needs kept alive.
struct Parsed {
  std::unique_ptr<SourceFile> source;
  std::unique_ptr<DiagnosticEngine> diagnostics;
  std::unique_ptr<Program> program;
  bool denselyNumbered = true;

  std::string errors() const { return diagnostics->render(); }
};

inline Parsed parse(const std::string& text, const std::string& name = "test.ir") {
  Parsed parsed;
  parsed.source = std::make_unique<SourceFile>(SourceFile::fromString(name, text));
  parsed.diagnostics = std::make_unique<DiagnosticEngine>(parsed.source.get());
  ParseResult result = parseProgram(*parsed.source, *parsed.diagnostics);
  parsed.denselyNumbered = result.denselyNumbered;
  if (result.program && verifyProgram(*result.program, *parsed.diagnostics))
    parsed.program = std::move(result.program);
  return parsed;
}

inline std::string readRepoFile(const std::string& relative) {
  std::ifstream in(std::string(RESHARDCTL_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace reshardctl::testing
