#include "tool/input_files.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "tool/program_io.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kDefaultGlobs = {"*.ir", "*.log"};

bool matches(const std::string& name, const std::vector<std::string>& globs) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& glob) { return fnmatch(glob.c_str(), name.c_str(), 0) == 0; });
}

// The matching files under `root`, sorted, without descending into hidden
// directories or following directory links (no cycles).
bool walk(const std::string& root, const std::vector<std::string>& globs, std::vector<std::string>* files,
          std::string* error) {
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code typeError;
    if (it->is_directory(typeError)) {
      if (name.size() > 1 && name[0] == '.') it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(typeError) && matches(name, globs)) found.push_back(it->path().string());
  }
  if (ec) {
    *error = fmt::format("cannot read directory '{}': {}", root, ec.message());
    return false;
  }
  std::sort(found.begin(), found.end());
  files->insert(files->end(), found.begin(), found.end());
  return true;
}

}  // namespace

void addInputFlags(CLI::App& command, InputSelection& inputs, const char* help) {
  command.add_option("inputs", inputs.paths, help)
      ->default_str("-");
  command.add_flag("-r,--recursive", inputs.recursive,
                   "Read every file under the directories given whose name matches *.ir, *.log or --glob");
  command.add_option("--glob", inputs.globs,
                     "With -r: read the files whose name matches this pattern instead (repeatable)")
      ->allow_extra_args(false);
}

bool expandInputs(const InputSelection& inputs, std::vector<std::string>* files, std::string* error) {
  const std::vector<std::string>& globs = inputs.globs.empty() ? kDefaultGlobs : inputs.globs;
  bool sawStdin = false;
  for (const std::string& path : inputs.paths) {
    std::error_code ec;
    if (path != "-" && fs::is_directory(path, ec)) {
      if (!inputs.recursive) {
        *error = fmt::format("'{}' is a directory; use -r to read the dumps under it", path);
        return false;
      }
      if (!walk(path, globs, files, error)) return false;
      continue;
    }
    if (path == "-" && std::exchange(sawStdin, true)) {
      *error = "standard input ('-') can be read only once";
      return false;
    }
    files->push_back(path);
  }
  return true;
}

bool expandInputs(const InputSelection& inputs, Reporter& reporter, std::vector<std::string>* files) {
  std::string error;
  if (!expandInputs(inputs, files, &error)) {
    reporter.toolError(error);
    return false;
  }
  if (files->empty())
    reporter.toolWarning(fmt::format("no file under {} matches {}", fmt::join(inputs.paths, " "),
                                     fmt::join(inputs.globs.empty() ? kDefaultGlobs : inputs.globs, " or ")));
  return true;
}

namespace {

// The inputs `path` gives when its programs are taken in turn: the file read
// once, each of its programs (or the file itself when it holds one or none).
// A file that cannot be read is left to the work, which reports why.
std::vector<InputProgram> programsInTurn(const std::string& path) {
  DiagnosticEngine unreported;
  int failure = kExitOk;
  std::shared_ptr<SourceFile> source = readSourceFile(path, unreported, &failure);
  if (!source || failure != kExitOk) return {InputProgram{path, "", path, 0, false, nullptr, std::nullopt}};
  std::vector<FoundProgram> found = findProgramsIn(*source);
  if (found.size() <= 1) {
    std::optional<FoundProgram> only;
    if (!found.empty()) only = std::move(found.front());
    return {InputProgram{path, "", path, 0, false, std::move(source), std::move(only)}};
  }
  std::vector<InputProgram> programs;
  for (size_t i = 0; i < found.size(); ++i)
    programs.push_back(InputProgram{path, std::to_string(i + 1), fmt::format("{}#{}", path, i + 1), i + 1, true,
                                    source, std::move(found[i])});
  return programs;
}

}  // namespace

InputRun forEachFile(const std::vector<std::string>& files, const InputSelection& inputs, Reporter& reporter,
                     OutputSink& summaries, const InputWork& each, SeveralPrograms several) {
  // Summaries name each input when there is more than one of them: several
  // files, or one file taken program by program.
  const bool inTurn = several == SeveralPrograms::InTurn && inputs.program.empty() &&
                      (files.size() > 1 || inputs.recursive);
  InputRun run;
  run.files = files.size();
  for (const std::string& file : files) {
    std::vector<InputProgram> programs =
        inTurn ? programsInTurn(file)
               : std::vector<InputProgram>{{file, inputs.program, file, 0, false, nullptr, std::nullopt}};
    const bool named = files.size() > 1 || programs.size() > 1;
    for (InputProgram& program : programs) {
      program.oneOfSeveral = named;
      const InputOutcome outcome = each(program);
      run.status = std::max(run.status, outcome.status);
      ++run.programs;
      if (named && !outcome.summary.empty()) reporter.summary(summaries, program.name + ": " + outcome.summary);
    }
  }
  return run;
}

InputRun forEachInput(const InputSelection& inputs, Reporter& reporter, OutputSink& summaries, const InputWork& each,
                      SeveralPrograms several) {
  std::vector<std::string> files;
  if (!expandInputs(inputs, reporter, &files)) return InputRun{kExitUsage, 0, 0};
  return forEachFile(files, inputs, reporter, summaries, each, several);
}

}  // namespace reshardctl
