#include "ir/source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <utility>

namespace reshardctl {

namespace {
std::string describeErrno(const std::string& path) {
  return "cannot read '" + path + "': " + std::strerror(errno);
}
}  // namespace

std::optional<SourceFile> SourceFile::load(const std::string& path, std::string* error) {
  SourceFile file;
  file.name_ = path == "-" ? "<stdin>" : path;
  if (path == "-") {
    file.owned_.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    file.text_ = file.owned_;
    return file;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = describeErrno(path);
    return std::nullopt;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) errno = EISDIR;
    *error = describeErrno(path);
    ::close(fd);
    return std::nullopt;
  }
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    size_t size = static_cast<size_t>(info.st_size);
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping != MAP_FAILED) {
      ::madvise(mapping, size, MADV_SEQUENTIAL);
      file.mapping_ = mapping;
      file.mappingSize_ = size;
      file.text_ = std::string_view(static_cast<const char*>(mapping), size);
      ::close(fd);
      return file;
    }
  }
  // Pipes, devices and empty files: read them.
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = describeErrno(path);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    file.owned_.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  file.text_ = file.owned_;
  return file;
}

SourceFile SourceFile::fromString(std::string name, std::string text) {
  SourceFile file;
  file.name_ = std::move(name);
  file.owned_ = std::move(text);
  file.text_ = file.owned_;
  return file;
}

SourceFile::SourceFile(SourceFile&& other) noexcept { *this = std::move(other); }

SourceFile& SourceFile::operator=(SourceFile&& other) noexcept {
  if (this == &other) return *this;
  if (mapping_) ::munmap(mapping_, mappingSize_);
  name_ = std::move(other.name_);
  bool ownsText = other.mapping_ == nullptr;
  owned_ = std::move(other.owned_);
  mapping_ = std::exchange(other.mapping_, nullptr);
  mappingSize_ = std::exchange(other.mappingSize_, 0);
  released_ = other.released_;
  lineStarts_ = std::move(other.lineStarts_);
  text_ = ownsText ? std::string_view(owned_) : other.text_;
  other.text_ = {};
  return *this;
}

SourceFile::~SourceFile() {
  if (mapping_) ::munmap(mapping_, mappingSize_);
}

SourceFile::LineCol SourceFile::lineCol(size_t offset) const {
  offset = std::min(offset, text_.size());
  if (lineStarts_.empty()) indexLines();
  // The last line starting at or before the offset (a newline belongs to its line).
  const size_t line = static_cast<size_t>(std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset) -
                                          lineStarts_.begin());
  return LineCol{line, offset - lineStarts_[line - 1] + 1};
}

void SourceFile::indexLines() const {
  constexpr size_t kChunk = size_t{8} << 20;  // a multiple of the page size
  lineStarts_.push_back(0);
  for (size_t start = 0; start < text_.size(); start += kChunk) {
    const char* p = text_.data() + start;
    const char* end = text_.data() + std::min(text_.size(), start + kChunk);
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) != nullptr)
      lineStarts_.push_back(static_cast<size_t>(++p - text_.data()));
    // Pages the parser gave back (releaseBefore) go back again: indexing must
    // not bring a big input back into memory.
    const size_t read = static_cast<size_t>(end - text_.data());
    if (mapping_ && read <= released_) ::madvise(static_cast<char*>(mapping_) + start, read - start, MADV_DONTNEED);
  }
}

std::string_view SourceFile::lineAt(size_t offset) const {
  offset = std::min(offset, text_.size());
  size_t start = offset == 0 ? 0 : text_.rfind('\n', offset - 1);
  start = (offset == 0 || start == std::string_view::npos) ? 0 : start + 1;
  size_t end = text_.find('\n', offset);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view line = text_.substr(start, end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

void SourceFile::releaseBefore(size_t offset) {
  if (!mapping_) return;
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t end = std::min(offset, mappingSize_) / page * page;
  if (end <= released_) return;
  ::madvise(static_cast<char*>(mapping_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

}  // namespace reshardctl
