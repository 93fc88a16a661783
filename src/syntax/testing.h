// Helpers shared by the *_test.cpp files (not part of the tool).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

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

// Each "%N" of `line`: where it starts, its length and N (a hand scan:
// std::regex trips GCC 12's -Wmaybe-uninitialized under the sanitizers).
template <typename Each>
void forEachValueNumber(const std::string& line, Each&& each) {
  for (size_t at = line.find('%'); at != std::string::npos; at = line.find('%', at + 1)) {
    size_t end = at + 1;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
    if (end > at + 1) each(at, end - at, std::stoul(line.substr(at + 1, end - at - 1)));
  }
}

// The op lines of samples/seed_mlp_before.ir copied until there are `ops`,
// every %N shifted by the values of one copy, as scripts/bench.sh generates
// its inputs. `vary`: each op's dictionary also gets an entry of its own.
inline std::string benchInput(size_t ops, bool vary) {
  std::istringstream seed(testing::readRepoFile("samples/seed_mlp_before.ir"));
  std::vector<std::string> lines;
  size_t values = 0;
  for (std::string line; std::getline(seed, line);) {
    if (!line.starts_with("    (")) continue;
    forEachValueNumber(line, [&](size_t, size_t, size_t n) { values = std::max(values, n + 1); });
    lines.push_back(line);
  }
  std::string text = "{\n";
  for (size_t written = 0, copy = 0; written < ops; ++copy) {
    for (const std::string& line : lines) {
      if (written == ops) break;
      std::string shifted;
      size_t last = 0;
      forEachValueNumber(line, [&](size_t at, size_t length, size_t n) {
        shifted += line.substr(last, at - last);
        shifted += fmt::format("%{}", n + copy * values);
        last = at + length;
      });
      shifted += line.substr(last);
      if (size_t brace = shifted.find(") {"); vary && brace != std::string::npos)
        shifted.insert(brace + 3, fmt::format("a0_vary:\"{}\",", written));
      text += shifted + '\n';
      ++written;
    }
  }
  return text + "}\n";
}

// Every sample (.ir) and golden input (.ir, .log) of the repository, sorted.
inline std::vector<std::filesystem::path> repositoryInputs() {
  const std::filesystem::path root(RESHARDCTL_SOURCE_DIR);
  std::vector<std::filesystem::path> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(root / "samples"))
    if (entry.path().extension() == ".ir") inputs.push_back(entry.path());
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "tests/golden")) {
    std::string extension = entry.path().extension().string();
    if (entry.is_regular_file() && (extension == ".ir" || extension == ".log")) inputs.push_back(entry.path());
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

}  // namespace reshardctl::testing
