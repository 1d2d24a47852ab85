// distributed/c10d/FileStore.cc — See FileStore.h.
#include "distributed/c10d/FileStore.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

#include "c10/util/Exception.h"

namespace c10d {

namespace {

// Note [FileStore's file]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The file is a log of records, each
//   op (1 byte: 'S' set, 'D' delete) | key size (8 bytes) | key | value size (8) | value
// (sizes in the machine's byte order: the processes share a file system, so
// one kind of machine is assumed). An operation holds an exclusive flock on
// the file from reading the log to appending its record, so operations of
// all processes are atomic with respect to each other; the current value of
// a key is its last record's. The log only grows: stores live as long as a
// job's rendezvous.
constexpr uint64_t kMaxSize = uint64_t{1} << 32;  // a key or value larger is damage

std::string as_string(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
std::vector<uint8_t> as_bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

class LockedFile {
 public:
  explicit LockedFile(const std::string& path) : path_(path) {
    do {
      fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    } while (fd_ < 0 && errno == EINTR);
    TORCH_CHECK(fd_ >= 0, "FileStore: cannot open '", path, "': ", std::strerror(errno),
                ". The folder must exist and be writable by every process of the job.");
    int rc;
    do {
      rc = ::flock(fd_, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int e = errno;
      ::close(fd_);
      TORCH_CHECK(false, "FileStore: cannot lock '", path, "': ", std::strerror(e),
                  " (the file system must support flock).");
    }
    read_all();
  }
  ~LockedFile() { ::close(fd_); }  // closing releases the lock
  LockedFile(const LockedFile&) = delete;
  LockedFile& operator=(const LockedFile&) = delete;

  std::map<std::string, std::string> data;

  void append(char op, const std::string& key, const std::string& value) {
    std::string record(1, op);
    put_size(record, key.size());
    record += key;
    put_size(record, value.size());
    record += value;
    TORCH_CHECK(::lseek(fd_, 0, SEEK_END) >= 0, "FileStore: cannot seek in '", path_, "': ",
                std::strerror(errno));
    size_t done = 0;
    while (done < record.size()) {
      const ssize_t n = ::write(fd_, record.data() + done, record.size() - done);
      if (n < 0 && errno == EINTR) continue;
      TORCH_CHECK(n > 0, "FileStore: cannot write to '", path_, "': ", std::strerror(errno),
                  " (is the disk full?).");
      done += static_cast<size_t>(n);
    }
    if (op == 'S') {
      data[key] = value;
    } else {
      data.erase(key);
    }
  }

 private:
  static void put_size(std::string& out, uint64_t n) {
    char buf[8];
    std::memcpy(buf, &n, 8);
    out.append(buf, 8);
  }

  void read_all() {
    std::string bytes;
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof(buf), static_cast<off_t>(bytes.size()));
      if (n < 0 && errno == EINTR) continue;
      TORCH_CHECK(n >= 0, "FileStore: cannot read '", path_, "': ", std::strerror(errno));
      if (n == 0) break;
      bytes.append(buf, static_cast<size_t>(n));
    }
    size_t at = 0;
    auto damaged = [&] {
      TORCH_CHECK(false, "FileStore: '", path_, "' is not a store file or is damaged (at byte ",
                  at, " of ", bytes.size(), "). Use a new file for each job.");
    };
    auto take_size = [&](uint64_t* n) {
      if (bytes.size() - at < 8) damaged();
      std::memcpy(n, bytes.data() + at, 8);
      at += 8;
      if (*n > kMaxSize || *n > bytes.size() - at) damaged();
    };
    while (at < bytes.size()) {
      const char op = bytes[at++];
      if (op != 'S' && op != 'D') damaged();
      uint64_t key_size = 0, value_size = 0;
      take_size(&key_size);
      std::string key = bytes.substr(at, key_size);
      at += key_size;
      take_size(&value_size);
      std::string value = bytes.substr(at, value_size);
      at += value_size;
      if (op == 'S') {
        data[std::move(key)] = std::move(value);
      } else {
        data.erase(key);
      }
    }
  }

  std::string path_;
  int fd_ = -1;
};

std::string keys_text(const std::vector<std::string>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += (i > 0 ? ", '" : "'") + keys[i] + "'";
  return out + "]";
}

}  // namespace

FileStore::FileStore(std::string path, std::chrono::milliseconds timeout)
    : Store(timeout), path_(std::move(path)) {
  TORCH_CHECK(!path_.empty(), "FileStore: expected a file path, got ''.");
  LockedFile check(path_);  // fails now if the file cannot be used
}

void FileStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  LockedFile(path_).append('S', key, as_string(value));
}

std::vector<uint8_t> FileStore::get(const std::string& key) {
  wait({key});
  LockedFile f(path_);
  auto it = f.data.find(key);
  TORCH_CHECK(it != f.data.end(), "FileStore: '", key, "' was deleted while get() waited for it.");
  return as_bytes(it->second);
}

int64_t FileStore::add(const std::string& key, int64_t value) {
  LockedFile f(path_);
  int64_t current = 0;
  auto it = f.data.find(key);
  if (it != f.data.end()) {
    TORCH_CHECK(detail::parse_counter(it->second, &current), "FileStore: add of ['", key, "']: the value is not an integer; add() works on "
                "keys only add() wrote.");
  }
  current += value;
  f.append('S', key, std::to_string(current));
  return current;
}

std::vector<uint8_t> FileStore::compareSet(const std::string& key,
                                           const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  LockedFile f(path_);
  auto it = f.data.find(key);
  if (it == f.data.end()) {
    if (!expected.empty()) return expected;  // as TCPStore and PyTorch
    f.append('S', key, as_string(desired));
    return desired;
  }
  if (it->second == as_string(expected)) {
    f.append('S', key, as_string(desired));
    return desired;
  }
  return as_bytes(it->second);
}

bool FileStore::deleteKey(const std::string& key) {
  LockedFile f(path_);
  if (f.data.count(key) == 0) return false;
  f.append('D', key, std::string());
  return true;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  TORCH_CHECK(!keys.empty(), "FileStore: check needs at least one key.");
  LockedFile f(path_);
  return std::all_of(keys.begin(), keys.end(),
                     [&f](const std::string& k) { return f.data.count(k) != 0; });
}

int64_t FileStore::getNumKeys() { return static_cast<int64_t>(LockedFile(path_).data.size()); }

void FileStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  TORCH_CHECK(!keys.empty(), "FileStore: wait needs at least one key.");
  const auto start = std::chrono::steady_clock::now();
  while (!check(keys)) {
    TORCH_CHECK(timeout.count() <= 0 || std::chrono::steady_clock::now() - start < timeout,
                "FileStore: wait of ", keys_text(keys), " timed out after ", timeout.count(),
                " ms (file ", path_, "). Check that every process of the group runs, uses this "
                "file, and reaches this point, or raise the timeout.");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace c10d
