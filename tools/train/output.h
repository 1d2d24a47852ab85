// tools/train/output.h — the files //tools:train writes (--metrics, --plot,
// --save's folder), checked before training and written so that a failure
// can never leave a silently empty or partial file.
//
//   check_output_path("--metrics", path);        // before training: fails fast
//   write_file_atomically("--metrics", path, csv);
//
// Note [Training outputs]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Every output is written to a temporary file beside its target (same folder,
// so the rename cannot cross file systems), with every write, the fsync and
// the close checked, then renamed over the target: the target holds either
// its old content or the complete new one, and any failure (a full disk, a
// read-only folder) throws, so the program exits non-zero. A target that
// exists and is not a regular file (/dev/full, a FIFO, a directory) is
// refused, since renaming over it would replace it.
#pragma once

#include <string>

namespace tools {
namespace train {

// Throws c10::Error naming `flag` and `path` unless a file can be created in
// the folder of `path` and `path` is not something other than a regular file.
void check_output_path(const char* flag, const std::string& path);

// An output file being written: a temporary beside `path`, renamed over it
// by commit(); removed if destroyed without commit().
class AtomicOutput {
 public:
  AtomicOutput(const char* flag, std::string path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  int fd() const noexcept { return fd_; }
  void write(const std::string& bytes);
  // Checks that something was written, flushes, closes and renames.
  void commit();

 private:
  std::string flag_;
  std::string path_;
  std::string tmp_;
  int fd_ = -1;
};

void write_file_atomically(const char* flag, const std::string& path, const std::string& bytes);

}  // namespace train
}  // namespace tools
