// tests/fuzz/fuzz_file.h — the fuzz input as a file, for readers that take a
// path: an in-memory file (memfd) reached as /proc/self/fd/N, rewritten for
// every input, so fuzzing touches no disk.
//
//   static ember_fuzz::MemoryFile file;
//   const std::string& path = file.write(data, size);
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ember_fuzz {

class MemoryFile {
 public:
  MemoryFile() {
    fd_ = ::memfd_create("ember-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  const std::string& write(const uint8_t* data, size_t size) {
    if (::ftruncate(fd_, 0) != 0) std::abort();
    size_t done = 0;
    while (done < size) {
      const ssize_t w = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (w <= 0) std::abort();
      done += static_cast<size_t>(w);
    }
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace ember_fuzz
