// c10/util/FileIO.cc — see FileIO.h.
#include "c10/util/FileIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "c10/util/Exception.h"

namespace c10 {

const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string describe_path(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    return S_ISREG(st.st_mode) ? "a regular file" : file_kind(st.st_mode);
  }
  const int err = errno;
  if (err == ELOOP) return "a symbolic link loop";
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return "a symbolic link to a missing file";
  }
  if (err == ENOENT) return "missing";
  return std::string("unreadable (") + std::strerror(err) + ")";
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd::UniqueFd(UniqueFd &&other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}

UniqueFd &UniqueFd::operator=(UniqueFd &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
  }
  return *this;
}

int UniqueFd::release() noexcept { return std::exchange(fd_, -1); }

UniqueFd open_regular_file(const std::string &where, const std::string &path,
                           const std::string &hint) {
  // O_NONBLOCK: open() of a FIFO would otherwise wait for a writer for ever.
  const int raw = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (raw < 0) {
    const int err = errno;
    C10_THROW_ERROR(
        Error, where + ": cannot open " + path + ": " +
                   (err == ELOOP ? "it is a symbolic link loop" : std::string(std::strerror(err))) +
                   ". Check the path and its permissions.");
  }
  UniqueFd fd(raw, 0);
  struct stat st {};
  if (::fstat(raw, &st) != 0) {
    C10_THROW_ERROR(Error, where + ": cannot open " + path + ": " + std::strerror(errno) + ".");
  }
  if (!S_ISREG(st.st_mode)) {
    C10_THROW_ERROR(Error, where + ": cannot open " + path + ": it is " + file_kind(st.st_mode) +
                               ", not a regular file. " + hint);
  }
  const int flags = ::fcntl(raw, F_GETFL);
  if (flags < 0 || ::fcntl(raw, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    C10_THROW_ERROR(Error, where + ": cannot open " + path + ": " + std::strerror(errno) + ".");
  }
  return UniqueFd(fd.release(), static_cast<uint64_t>(st.st_size));
}

bool pread_exactly(int fd, void *data, size_t n, uint64_t offset, const std::string &where,
                   const std::string &path) {
  auto *p = static_cast<char *>(data);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      C10_THROW_ERROR(Error, where + ": cannot read " + path + ": " + std::strerror(errno) + ".");
    }
    if (r == 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return true;
}

AtomicFileWriter::AtomicFileWriter(std::string where, std::string path)
    : where_(std::move(where)), path_(std::move(path)), tmp_(path_ + ".tmp.XXXXXX") {
  check_target();
  fd_ = ::mkstemp(tmp_.data());
  TORCH_CHECK(fd_ >= 0, where_, ": cannot create a temporary file next to '", path_,
              "': ", std::strerror(errno), "; check that its folder exists and is writable");
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFileWriter::check_target() const {
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    // Renaming over a FIFO, a device or a folder would replace it.
    TORCH_CHECK(S_ISREG(st.st_mode), where_, " '", path_, "' is ", file_kind(st.st_mode),
                ", not a regular file; give the path of a file to write");
  }
}

void AtomicFileWriter::write(const void *data, size_t n) {
  TORCH_CHECK(fd_ >= 0, where_, ": '", path_, "' was already committed; create a new writer");
  const auto *p = static_cast<const char *>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    TORCH_CHECK(w > 0, where_, ": cannot write '", path_,
                "': ", w < 0 ? std::strerror(errno) : "no progress");
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFileWriter::commit(bool require_bytes) {
  TORCH_CHECK(fd_ >= 0, where_, ": '", path_, "' was already committed; create a new writer");
  check_target();
  struct stat st {};
  TORCH_CHECK(::fstat(fd_, &st) == 0, where_, ": cannot stat the temporary of '", path_,
              "': ", std::strerror(errno));
  TORCH_CHECK(!require_bytes || st.st_size > 0, where_, ": nothing was written to '", path_, "'");
  TORCH_CHECK(::fchmod(fd_, 0644) == 0 && ::fsync(fd_) == 0, where_, ": cannot flush '", path_,
              "': ", std::strerror(errno));
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    C10_THROW_ERROR(Error, where_ + ": cannot close '" + path_ + "': " + std::strerror(err));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    C10_THROW_ERROR(
        Error, where_ + ": cannot rename '" + tmp_ + "' to '" + path_ + "': " + std::strerror(err));
  }
}

}  // namespace c10
