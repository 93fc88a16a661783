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

void addInputFlags(CLI::App& command, InputSelection& inputs) {
  command.add_option("inputs", inputs.paths,
                     "Program dumps to read ('-' = standard input, the default); with -r, directories too")
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

int forEachFile(const std::vector<std::string>& files, Reporter& reporter, std::FILE* summaries,
                const InputWork& each) {
  int worst = kExitOk;
  for (const std::string& file : files) {
    const InputOutcome outcome = each(file);
    worst = std::max(worst, outcome.status);
    if (files.size() > 1 && !outcome.summary.empty()) reporter.summary(summaries, file + ": " + outcome.summary);
  }
  return worst;
}

int forEachInput(const InputSelection& inputs, Reporter& reporter, std::FILE* summaries, const InputWork& each) {
  std::vector<std::string> files;
  if (!expandInputs(inputs, reporter, &files)) return kExitUsage;
  return forEachFile(files, reporter, summaries, each);
}

}  // namespace reshardctl
