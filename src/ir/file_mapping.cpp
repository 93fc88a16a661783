#include "ir/file_mapping.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace reshardctl {

namespace {

// The mappings the SIGBUS handler may repair. Slots are claimed and freed
// with atomics only: the handler can run at any moment, in any thread.
struct GuardSlot {
  std::atomic<char*> begin{nullptr};
  std::atomic<size_t> size{0};
  std::atomic<size_t> truncatedAt{SIZE_MAX};  // SIZE_MAX: intact
  std::atomic<bool> claimed{false};
};
constexpr size_t kSlots = 16;  // inputs mapped at once (diff maps two)
std::array<GuardSlot, kSlots> gSlots;
struct sigaction gPrevious {};
std::once_flag gInstalled;

size_t pageSize() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// Hands a fault that is not ours to whoever handled SIGBUS before us; with
// nobody, the default action: returning re-runs the faulting access, which
// faults again and terminates the process as SIGBUS does.
void passOn(int signal, siginfo_t* info, void* context) {
  if (gPrevious.sa_flags & SA_SIGINFO) {
    if (gPrevious.sa_sigaction) gPrevious.sa_sigaction(signal, info, context);
    return;
  }
  if (gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN) {
    gPrevious.sa_handler(signal);
    return;
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  ::sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
}

// Async-signal context: atomics and the mmap system call only (a raw system
// call on Linux, which takes no lock of the C library).
void onBusError(int signal, siginfo_t* info, void* context) {
  char* address = static_cast<char*>(info->si_addr);
  for (GuardSlot& slot : gSlots) {
    char* begin = slot.begin.load();
    size_t size = slot.size.load();
    if (!begin || address < begin || address >= begin + size) continue;
    // Zero pages from the faulting page to the mapping's end: every later
    // read past the file's new end finds them too, without another fault.
    char* page = begin + (static_cast<size_t>(address - begin) / pageSize()) * pageSize();
    void* zeros = ::mmap(page, static_cast<size_t>(begin + size - page), PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros == MAP_FAILED) break;
    size_t at = static_cast<size_t>(page - begin);
    size_t previous = slot.truncatedAt.load();
    while (at < previous && !slot.truncatedAt.compare_exchange_weak(previous, at)) {
    }
    return;
  }
  passOn(signal, info, context);
}

void installGuard() {
  struct sigaction action {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &gPrevious);
}

int claimSlot(char* begin, size_t size) {
  for (size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!gSlots[i].claimed.compare_exchange_strong(expected, true)) continue;
    gSlots[i].truncatedAt.store(SIZE_MAX);
    gSlots[i].size.store(size);
    gSlots[i].begin.store(begin);
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::unique_ptr<FileMapping> FileMapping::map(int fd, size_t size) {
  std::call_once(gInstalled, installGuard);
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) return nullptr;
  int slot = claimSlot(static_cast<char*>(data), size);
  if (slot < 0) {
    ::munmap(data, size);
    return nullptr;
  }
  ::madvise(data, size, MADV_SEQUENTIAL);
  std::unique_ptr<FileMapping> mapping(new FileMapping());
  mapping->data_ = static_cast<char*>(data);
  mapping->size_ = size;
  mapping->slot_ = slot;
  return mapping;
}

FileMapping::~FileMapping() {
  GuardSlot& slot = gSlots[static_cast<size_t>(slot_)];
  slot.begin.store(nullptr);  // the handler stops looking here before the pages go
  ::munmap(data_, size_);
  slot.claimed.store(false);
}

std::string_view FileMapping::bytes() const { return {data_, size_}; }

void FileMapping::releaseBefore(size_t end) {
  end = std::min(end, size_) / pageSize() * pageSize();
  if (end <= released_) return;
  ::madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

size_t FileMapping::dropPages(size_t begin, size_t end) {
  const size_t page = pageSize();
  const size_t from = (begin + page - 1) / page * page;
  const size_t to = std::min(end, size_) / page * page;
  if (from >= to) return begin;
  ::madvise(data_ + from, to - from, MADV_DONTNEED);
  return to;
}

std::optional<size_t> FileMapping::truncatedAt() const {
  size_t at = gSlots[static_cast<size_t>(slot_)].truncatedAt.load();
  if (at == SIZE_MAX) return std::nullopt;
  return at;
}

}  // namespace reshardctl
