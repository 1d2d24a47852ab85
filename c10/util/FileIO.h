// c10/util/FileIO.h — opening input files without blocking and writing output
// files atomically, with messages that name the file and what is wrong.
//
//   c10::UniqueFd in = c10::open_regular_file("MNIST", path, "Pass the path of
//   the data file."); uint64_t n = in.size();                          // from
//   the fstat that checked it
//
//   c10::AtomicFileWriter out("safetensors::save", path);   // a temporary
//   beside `path` out.write(bytes, n);                                     //
//   every write checked out.commit();                 // fsync, close and
//   rename over `path`, each checked
//
// Note [Opening and writing files]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Input: open() of a FIFO waits for a writer for ever, so files are opened
// O_NONBLOCK and fstat decides whether they are regular files before anything
// is read; a FIFO, directory, device or symlink loop is refused by name.
// Output: bytes go to a temporary file in the target's folder (so the rename
// cannot cross file systems); every write, the fsync and the close are
// checked, then the temporary is renamed over the target. The target holds
// its old content or the complete new one, and any failure (a full disk, a
// read-only folder) throws. A writer destroyed without commit() removes its
// temporary. Used by the data readers, safetensors and //tools:train.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace c10 {

// "a directory", "a FIFO (named pipe)", "a socket", "a character device",
// "a block device", "a symbolic link", else "not a regular file".
const char *file_kind(mode_t mode);

// What is at `path`, for messages: "a regular file", one of file_kind's
// answers, "a symbolic link loop", "a symbolic link to a missing file",
// "missing", or "unreadable (<reason>)".
std::string describe_path(const std::string &path);

// A file descriptor closed on destruction, with the size of the file.
class UniqueFd {
 public:
  UniqueFd() = default;
  UniqueFd(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~UniqueFd();
  UniqueFd(UniqueFd &&other) noexcept;
  UniqueFd &operator=(UniqueFd &&other) noexcept;
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;

  int get() const noexcept { return fd_; }
  uint64_t size() const noexcept { return size_; }
  // Gives up ownership: the caller closes the descriptor.
  int release() noexcept;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Opens `path` for reading without blocking and checks that it is a regular
// file; the descriptor is returned in blocking mode. Throws c10::Error:
//   "<where>: cannot open <path>: No such file or directory. Check the path
//    and its permissions."
//   "<where>: cannot open <path>: it is a FIFO (named pipe), not a regular
//    file. <hint>"
UniqueFd open_regular_file(const std::string &where, const std::string &path,
                           const std::string &hint);

// Reads exactly `n` bytes at `offset` (retrying short reads and EINTR);
// false at end of file, throws "<where>: cannot read <path>: <reason>." on an
// I/O error.
bool pread_exactly(int fd, void *data, size_t n, uint64_t offset, const std::string &where,
                   const std::string &path);

// An output file being written; See Note [Opening and writing files]. Errors
// name `where` (a function or a flag, e.g. "--metrics") and the target.
class AtomicFileWriter {
 public:
  // Refuses a target that exists and is not a regular file, and creates the
  // temporary: "<where>: cannot create a temporary file next to '<path>':
  // <reason>; check that its folder exists and is writable".
  AtomicFileWriter(std::string where, std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;

  int fd() const noexcept { return fd_; }
  const std::string &path() const noexcept { return path_; }
  void write(const void *data, size_t n);
  void write(const std::string &bytes) { write(bytes.data(), bytes.size()); }
  // Flushes, closes and renames over the target; after it the writer owns
  // nothing. With `require_bytes`, an empty temporary is an error ("nothing
  // was written to '<path>'").
  void commit(bool require_bytes = false);

 private:
  void check_target() const;

  std::string where_;
  std::string path_;
  std::string tmp_;
  int fd_ = -1;
};

}  // namespace c10
