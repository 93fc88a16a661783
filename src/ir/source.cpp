#include "ir/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "ir/file_mapping.h"
#include "ir/line_table.h"
#include "ir/stream_buffer.h"

namespace reshardctl {

namespace {

std::string describeErrno(const std::string& path, int error) {
  return "cannot read '" + path + "': " + std::strerror(error);
}

// "4 GiB", "1.5 MiB", "100 bytes": how a limit reads in a message.
std::string sizeText(size_t bytes) {
  constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && value >= 1024) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} bytes", bytes) : fmt::format("{:.4g} {}", value, kUnits[unit]);
}

std::string tooLargeMessage(size_t limit) {
  return fmt::format("the input is larger than the limit of {} ({} bytes): reading stopped here "
                     "(RESHARDCTL_MAX_INPUT sets the limit, 4 GiB at most)",
                     sizeText(limit), limit);
}

// A regular file read from its start can be mapped; anything else (a pipe, a
// terminal, a device, /proc files that claim size 0, standard input already
// partly read) is read as a stream.
bool mappable(int fd, const struct stat& info) {
  return S_ISREG(info.st_mode) && info.st_size > 0 && ::lseek(fd, 0, SEEK_CUR) == 0;
}

}  // namespace

SourceFile::SourceFile() = default;
SourceFile::SourceFile(SourceFile&&) noexcept = default;
SourceFile& SourceFile::operator=(SourceFile&&) noexcept = default;
SourceFile::~SourceFile() = default;

void SourceFile::setText(std::string_view text) {
  text_ = text;
  lines_ = std::make_unique<LineTable>(text);
}

std::optional<SourceFile> SourceFile::load(const std::string& path, std::string* error,
                                           const LoadOptions& options) {
  const size_t limit = std::min(options.maxBytes, kMaxInputBytes);
  SourceFile file;
  file.name_ = path == "-" ? "<stdin>" : path;
  const bool isStdin = path == "-";
  int fd = isStdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = describeErrno(path, errno);
    return std::nullopt;
  }
  auto fail = [&](int code) {
    *error = describeErrno(isStdin ? "<stdin>" : path, code);
    if (!isStdin) ::close(fd);
    return std::nullopt;
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0) return fail(errno);
  if (S_ISDIR(info.st_mode)) return fail(EISDIR);
  if (mappable(fd, info)) {
    size_t size = static_cast<size_t>(info.st_size);
    if (size > limit) file.cutoff_ = Cutoff{limit, tooLargeMessage(limit)};
    file.mapping_ = FileMapping::map(fd, std::min(size, limit));
  }
  if (file.mapping_) {
    file.setText(file.mapping_->bytes());
  } else {
    file.stream_ = std::make_unique<StreamBuffer>(options.spillAfter);
    std::string reason;
    StreamBuffer::Stop stop = file.stream_->readAll(fd, limit, &reason);
    if (stop != StreamBuffer::Stop::ReadError && !file.mapSpilledStream()) {
      reason = std::string("cannot read back its temporary copy: ") + std::strerror(errno);
      stop = StreamBuffer::Stop::ReadError;
    }
    if (stop == StreamBuffer::Stop::ReadError) {
      *error = "cannot read '" + (isStdin ? std::string("<stdin>") : path) + "': " + reason;
      if (!isStdin) ::close(fd);
      return std::nullopt;
    }
    if (stop == StreamBuffer::Stop::TooLarge) file.cutoff_ = Cutoff{limit, tooLargeMessage(limit)};
    if (stop == StreamBuffer::Stop::NulByte)
      file.cutoff_ = Cutoff{file.text_.size(), "a NUL byte: the input is binary data, not a program dump"};
  }
  if (!isStdin) ::close(fd);
  return file;
}

bool SourceFile::mapSpilledStream() {
  if (stream_->spillFile() >= 0) mapping_ = FileMapping::map(stream_->spillFile(), stream_->size());
  if (mapping_) {
    stream_.reset();  // the mapping keeps the file
    setText(mapping_->bytes());
    return true;
  }
  if (!stream_->unspill()) return false;
  setText(stream_->bytes());
  return true;
}

SourceFile SourceFile::fromString(std::string name, std::string text) {
  SourceFile file;
  file.name_ = std::move(name);
  file.ownedString_ = std::make_unique<std::string>(std::move(text));
  file.setText(*file.ownedString_);
  return file;
}

// A lookup past the line starts recorded so far reads the text up to it; the
// pages it read of a mapped file go again behind it. Line numbers asked after
// a parse that recorded none (the parallel parse's chunks drop their pages
// without: json's "line", --check's findings) would otherwise bring the whole
// input back into memory, one more input's size at the peak.
size_t SourceFile::lineStart(size_t offset, size_t* line) const {
  LineTable::Scan scan;
  LineTable::Position where = lines_->locate(offset, &scan);
  if (mapping_ && scan.to > scan.from) mapping_->dropPages(scan.from, scan.to);
  if (line) *line = where.line;
  return where.lineStart;
}

std::optional<SourceFile> SourceFile::fromStream(std::string name, std::unique_ptr<StreamBuffer> stream) {
  SourceFile file;
  file.name_ = std::move(name);
  file.stream_ = std::move(stream);
  if (!file.mapSpilledStream()) return std::nullopt;
  return file;
}

SourceFile::LineCol SourceFile::lineCol(size_t offset) const {
  offset = std::min(offset, text_.size());
  size_t line = 0;
  size_t start = lineStart(offset, &line);
  return LineCol{line, offset - start + 1};
}

std::string_view SourceFile::lineAt(size_t offset, size_t maxAfter) const {
  offset = std::min(offset, text_.size());
  const size_t start = lineStart(offset, nullptr);
  const size_t newline = text_.substr(offset, maxAfter).find('\n');
  if (newline == std::string_view::npos && maxAfter < text_.size() - offset)
    return text_.substr(start, offset + maxAfter - start);  // cut: it runs on
  const size_t end = newline == std::string_view::npos ? text_.size() : offset + newline;
  std::string_view line = text_.substr(start, end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

void SourceFile::releaseBefore(size_t offset) {
  if (!mapping_) return;
  lines_->scanTo(offset);
  mapping_->releaseBefore(offset);
}

size_t SourceFile::dropPages(size_t begin, size_t end) const {
  return mapping_ ? mapping_->dropPages(begin, end) : begin;
}

std::optional<size_t> SourceFile::truncatedAt() const {
  return mapping_ ? mapping_->truncatedAt() : std::nullopt;
}

}  // namespace reshardctl
