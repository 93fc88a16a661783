#include "tool/input_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "support/failure.h"
#include "support/text.h"
#include "tool/reporting.h"

namespace reshardctl {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kDefaultGlobs = {"*.ir", "*.log"};

bool matches(const std::string& name, const std::vector<std::string>& globs) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& glob) { return fnmatch(glob.c_str(), name.c_str(), 0) == 0; });
}

// What the walk may read beneath a directory: a file a link names only when
// the link stays inside the tree (grep -r's rule: a dump cannot pull
// /proc/self/environ or ~/.netrc into an error snippet), and nothing on the
// kernel's pseudo file systems (/proc, /sys: endless or blocking "files").
bool onPseudoFileSystem(int directory) {
  struct statfs info {};
  if (::fstatfs(directory, &info) != 0) return false;
  return info.f_type == PROC_SUPER_MAGIC || info.f_type == SYSFS_MAGIC;
}

bool insideTree(const std::string& target, const std::string& realRoot) {
  return realRoot == "/" || (target.size() > realRoot.size() && target.compare(0, realRoot.size(), realRoot) == 0 &&
                             target[realRoot.size()] == '/');
}

// Whether the link `path` names a regular file inside the tree.
bool linkedFileInTree(const std::string& path, const std::string& realRoot) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return false;
  const std::string target(resolved);
  std::free(resolved);
  struct stat info {};
  return insideTree(target, realRoot) && ::stat(target.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

struct TreeWalk {
  const std::vector<std::string>& globs;
  std::string realRoot;
  std::vector<std::string> directories;  // still to read (a stack: memory grows with the depth, not its square)
  std::vector<std::string> found;
  std::vector<std::string> unreadable;   // directories that could not be read: inputs that fail

  // Reads one directory, pushing its subdirectories and keeping its files.
  void read(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
    if (dir == nullptr) {
      if (fd >= 0) ::close(fd);
      unreadable.push_back(path);
      return;
    }
    const bool pseudo = onPseudoFileSystem(fd);
    for (errno = 0; const dirent* entry = ::readdir(dir); errno = 0) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      struct stat info {};
      if (::fstatat(fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
      const std::string child = path.back() == '/' ? path + name : path + "/" + name;
      if (S_ISDIR(info.st_mode)) {
        if (name[0] != '.') directories.push_back(child);  // hidden ones (.git) skipped
      } else if (matches(name, globs) && !pseudo &&
                 (S_ISREG(info.st_mode) || (S_ISLNK(info.st_mode) && linkedFileInTree(child, realRoot)))) {
        found.push_back(child);
      }
    }
    if (errno != 0) unreadable.push_back(path);
    ::closedir(dir);
  }
};

// The matching files under `root` (see TreeWalk), sorted, without following
// directory links (no cycles); then each directory that could not be read
// (an input whose reading fails, so the run says so and exits 2).
void walk(const std::string& root, const std::vector<std::string>& globs, std::vector<std::string>* files) {
  TreeWalk tree{globs, root, {root}, {}, {}};
  if (char* resolved = ::realpath(root.c_str(), nullptr)) {
    tree.realRoot = resolved;
    std::free(resolved);
  }
  while (!tree.directories.empty()) {
    std::string next = std::move(tree.directories.back());
    tree.directories.pop_back();
    tree.read(next);
  }
  std::sort(tree.found.begin(), tree.found.end());
  std::sort(tree.unreadable.begin(), tree.unreadable.end());
  files->insert(files->end(), tree.found.begin(), tree.found.end());
  files->insert(files->end(), tree.unreadable.begin(), tree.unreadable.end());
}

}  // namespace

void addFragmentFlag(CLI::App& command, bool& fragment) {
  command.add_flag("--fragment", fragment,
                   "Read text that is not a braced program as op lines: ops without braces, one op alone, "
                   "elision lines ('...') kept; values used and not defined are external inputs");
}

void addInputFlags(CLI::App& command, InputSelection& inputs, const char* help) {
  command.add_option("inputs", inputs.paths, help)
      ->default_str("-");
  command.add_flag("-r,--recursive", inputs.recursive,
                   "Read every file under the directories given whose name matches *.ir, *.log or --glob");
  addFragmentFlag(command, inputs.fragment);
  command.add_option("--glob", inputs.globs,
                     "With -r: read the files whose name matches this pattern instead (repeatable)")
      ->allow_extra_args(false);
}

std::vector<std::string> expandInputs(const InputSelection& inputs) {
  const std::vector<std::string>& globs = inputs.globs.empty() ? kDefaultGlobs : inputs.globs;
  std::vector<std::string> files;
  bool sawStdin = false;
  for (const std::string& path : inputs.paths) {
    std::error_code ec;
    if (path != "-" && fs::is_directory(path, ec)) {
      if (!inputs.recursive)
        throw Failure(FailureKind::Usage, fmt::format("'{}' is a directory; use -r to read the dumps under it", path));
      walk(path, globs, &files);
      continue;
    }
    if (path == "-" && std::exchange(sawStdin, true))
      throw Failure(FailureKind::Usage, "standard input ('-') can be read only once");
    files.push_back(path);
  }
  return files;
}

std::vector<std::string> expandInputs(const InputSelection& inputs, Reporter& reporter) {
  std::vector<std::string> files = expandInputs(inputs);
  if (files.empty())
    reporter.toolWarning(fmt::format("no file under {} matches {}", fmt::join(inputs.paths, " "),
                                     fmt::join(inputs.globs.empty() ? kDefaultGlobs : inputs.globs, " or ")));
  return files;
}

namespace {

// RESHARDCTL_MAX_INPUT: a smaller input size limit than SourceFile's 4 GiB, in
// bytes or with a suffix K, M, G (powers of 1024), e.g. "512M".
std::optional<size_t> inputLimit(std::string* error) {
  const char* text = std::getenv("RESHARDCTL_MAX_INPUT");
  if (text == nullptr || *text == '\0') return SourceFile::kMaxInputBytes;
  std::string_view spec(text);
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), number);
  std::string_view suffix(end, static_cast<size_t>(spec.data() + spec.size() - end));
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : -1;
  if (ec != std::errc() || shift < 0 || number == 0 ||
      number > (SourceFile::kMaxInputBytes >> shift)) {
    *error = fmt::format("RESHARDCTL_MAX_INPUT='{}' is not a size from 1 to 4G-1 bytes "
                         "(a number of bytes, or with a suffix K, M or G)", spec);
    return std::nullopt;
  }
  return static_cast<size_t>(number << shift);
}

// A directory among the files is one -r could not read (walk): why.
bool unreadableDirectory(const std::string& path, std::string* error) {
  struct stat info {};
  if (path == "-" || ::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return false;
  DIR* dir = ::opendir(path.c_str());
  const int reason = dir == nullptr ? errno : EISDIR;
  if (dir != nullptr) ::closedir(dir);
  *error = fmt::format("cannot read directory '{}': {}", path, std::strerror(reason));
  return true;
}

}  // namespace

std::shared_ptr<const InputFile> readInput(const std::string& path, bool fragment) {
  auto file = std::make_shared<InputFile>();
  file->path = path;
  file->fragment = fragment;
  std::optional<size_t> limit = inputLimit(&file->error);
  if (limit && unreadableDirectory(path, &file->error)) limit.reset();
  if (limit)
    readProgramFile(*file, {*limit});
  else
    file->failure = kExitUsage;
  return file;
}

InputProgram InputProgram::chosen(std::shared_ptr<const InputFile> file, const std::string& selector) {
  std::string path = file->path;
  return InputProgram{path, selector, path, 0, false, std::move(file)};
}

LoadedProgram loadProgram(const InputProgram& input, DiagnosticEngine& diagnostics) {
  return loadFoundProgram(*input.file, ProgramChoice{input.index, input.selector}, diagnostics);
}

ProgramName programNameOf(const std::string& path) {
  const size_t hash = path.rfind('#');
  if (hash == std::string::npos || hash == 0 || !isProgramIndex(path.substr(hash + 1))) return {path, 0};
  std::error_code ec;
  if (fs::exists(path, ec)) return {path, 0};  // a file whose own name ends in #N
  return {path.substr(0, hash), std::stoul(path.substr(hash + 1))};
}

namespace {

// Program `number` of `file`, named `given` (FILE#N). A number the file does
// not hold is left to choose(), whose usage error lists what it holds.
InputProgram numbered(std::shared_ptr<const InputFile> file, size_t number, const std::string& given) {
  const size_t count = file->programs.size();
  const size_t index = number >= 1 && number <= count && count > 1 ? number : 0;
  std::string path = file->path;
  return InputProgram{std::move(path), std::to_string(number), given, index, false, std::move(file)};
}

// A file without a program is skipped in a run over several inputs, unless
// it is named as a dump (*.ir) or is standard input: then it is parsed whole,
// so a broken dump is diagnosed rather than passed over.
bool skippedWithoutProgram(const InputFile& file) {
  const std::string& path = file.path;
  const bool dump = path == "-" || (path.size() > 3 && path.compare(path.size() - 3, 3, ".ir") == 0);
  return file.failure == kExitOk && file.programs.empty() && !dump;
}

// The inputs one file gives, or why it gives none.
struct FileInputs {
  std::vector<InputProgram> programs;
  std::string skipped;  // why none: "no program in it", ...
};

// The inputs of `file` in a run over several inputs: with --program, the
// programs it selects (every one, not only the first); without, all of them.
// They are taken in turn (FILE#N), or with `several` WholeFile the file is
// one input whose program --program chooses.
FileInputs inputsOf(std::shared_ptr<const InputFile> file, const std::string& selector, SeveralPrograms several) {
  if (skippedWithoutProgram(*file)) return {{}, "no program in it"};
  const std::vector<FoundProgram>& found = file->programs;
  std::vector<size_t> numbers;
  for (size_t i = 1; i <= found.size(); ++i)
    if (selector.empty() || selectsProgram(found[i - 1], i, selector)) numbers.push_back(i);
  if (!found.empty() && numbers.empty()) return {{}, "no program matches --program " + selector};
  if (several == SeveralPrograms::WholeFile || found.size() <= 1) return {{InputProgram::chosen(std::move(file), selector)}, ""};
  FileInputs inputs;
  for (size_t i : numbers)
    inputs.programs.push_back(InputProgram{file->path, std::to_string(i), fmt::format("{}#{}", file->path, i), i, true, file});
  return inputs;
}

// What `path` gives, looked up once: FILE#N its one program (which
// --program cannot choose again); in a run over one input, the file with
// --program choosing (a usage error when it cannot); else inputsOf.
FileInputs inputsNamed(const std::string& path, const std::string& selector, bool fragment, bool severalInputs,
                       SeveralPrograms several) {
  const ProgramName name = programNameOf(path);
  if (name.number > 0) {
    if (!selector.empty())
      throw Failure(FailureKind::Usage,
                    fmt::format("'{}' names its program already; leave out --program {}", path, selector));
    return {{numbered(readInput(name.file, fragment), name.number, path)}, ""};
  }
  std::shared_ptr<const InputFile> file = readInput(path, fragment);
  if (!severalInputs) return {{InputProgram::chosen(std::move(file), selector)}, ""};
  return inputsOf(std::move(file), selector, several);
}

}  // namespace

LoadedProgram loadProgram(const std::string& path, DiagnosticEngine& diagnostics, const std::string& selector,
                          bool fragment) {
  return loadProgram(inputsNamed(path, selector, fragment, false, SeveralPrograms::WholeFile).programs.front(),
                     diagnostics);
}

InputRun forEachInput(const std::vector<std::string>& files, const InputSelection& inputs, Reporter& reporter,
                      const SummarySink& summaries, const InputWork& each, SeveralPrograms several) {
  const bool severalInputs = files.size() > 1 || inputs.recursive;
  InputRun run;
  run.files = files.size();
  for (const std::string& path : files) {
    FileInputs selected = inputsNamed(path, inputs.program, inputs.fragment, severalInputs, several);
    if (!selected.skipped.empty()) {
      ++run.skipped;
      reporter.summary(summaries(), path + ": skipped (" + selected.skipped + ")");
      continue;
    }
    // Summaries name each input when there is more than one of them (several
    // files, or one file taken program by program), and every input under -r.
    const bool named = files.size() > 1 || selected.programs.size() > 1 || inputs.recursive;  // -r names even one file
    for (InputProgram& program : selected.programs) {
      program.oneOfSeveral = named;
      const InputOutcome outcome = each(program);
      run.status = std::max(run.status, outcome.status);
      ++run.programs;
      if (named && !outcome.summary.empty()) reporter.summary(summaries(), program.name + ": " + outcome.summary);
    }
  }
  if (run.programs == 0 && run.skipped > 0)
    reporter.toolWarning(inputs.program.empty() ? fmt::format("no program in {} read", plural(run.skipped, "file"))
                                                : fmt::format("no program matches --program {} in {}", inputs.program,
                                                              plural(run.skipped, "file")));
  return run;
}

}  // namespace reshardctl
