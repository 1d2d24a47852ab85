// tools/train/output.cc — see output.h.
#include "tools/train/output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "c10/util/Exception.h"

namespace tools {
namespace train {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

void check_not_special(const char* flag, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    TORCH_CHECK(S_ISREG(st.st_mode), "train: ", flag, " '", path, "' is ", kind_of(st.st_mode),
                ", not a regular file; give the path of a file to write");
  }
}

}  // namespace

void check_output_path(const char* flag, const std::string& path) {
  TORCH_CHECK(!path.empty() && path.back() != '/', "train: ", flag, " '", path,
              "' names no file; give the path of a file to write");
  check_not_special(flag, path);
  AtomicOutput probe(flag, path);  // creates and, unused, removes a temporary
}

AtomicOutput::AtomicOutput(const char* flag, std::string path)
    : flag_(flag), path_(std::move(path)), tmp_(path_ + ".tmp.XXXXXX") {
  fd_ = ::mkstemp(tmp_.data());
  TORCH_CHECK(fd_ >= 0, "train: ", flag_, ": cannot create a file next to '", path_, "': ",
              std::strerror(errno), "; check that its folder exists and is writable");
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicOutput::write(const std::string& bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    TORCH_CHECK(w > 0, "train: ", flag_, ": cannot write '", path_, "': ",
                w < 0 ? std::strerror(errno) : "no progress", "");
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicOutput::commit() {
  check_not_special(flag_.c_str(), path_);
  struct stat st {};
  TORCH_CHECK(::fstat(fd_, &st) == 0 && st.st_size > 0, "train: ", flag_, ": nothing was written "
              "to '", path_, "'");
  TORCH_CHECK(::fchmod(fd_, 0644) == 0 && ::fsync(fd_) == 0, "train: ", flag_,
              ": cannot flush '", path_, "': ", std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    C10_THROW_ERROR(Error, "train: " + flag_ + ": cannot close '" + path_ + "': " +
                               std::strerror(err));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    C10_THROW_ERROR(Error, "train: " + flag_ + ": cannot rename '" + tmp_ + "' to '" + path_ +
                               "': " + std::strerror(err));
  }
}

void write_file_atomically(const char* flag, const std::string& path, const std::string& bytes) {
  check_not_special(flag, path);
  AtomicOutput out(flag, path);
  out.write(bytes);
  out.commit();
}

}  // namespace train
}  // namespace tools
