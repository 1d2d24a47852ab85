#include "nn/data/datasets/file_reader.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"

namespace torch {
namespace data {
namespace datasets {
namespace detail {
namespace {

// 128 KiB of compressed input at a time.
constexpr size_t kInputBuffer = 128 * 1024;

}  // namespace

std::string find_plain_or_gz(const std::string& where, const std::string& dir,
                             const std::string& name) {
  const std::string plain = dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
  const std::string gz = plain + ".gz";
  const std::string plain_is = c10::describe_path(plain);
  if (plain_is == "a regular file") {
    return plain;
  }
  const std::string gz_is = c10::describe_path(gz);
  if (gz_is == "a regular file") {
    return gz;
  }
  // Name what is there rather than claim that nothing is.
  for (const auto& [path, is] : {std::make_pair(plain, plain_is), std::make_pair(gz, gz_is)}) {
    if (is != "missing") {
      C10_THROW_ERROR(Error, where + ": " + path + " is " + is +
                                 ", not a regular file. Replace it with the data file.");
    }
  }
  C10_THROW_ERROR(Error, where + ": file not found: neither " + plain + " nor " + gz +
                             " exists. Check the dataset directory.");
}

uint64_t file_size(const std::string& where, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string is = c10::describe_path(path);
    C10_THROW_ERROR(Error, where + ": cannot read " + path + ": " +
                               (is == "missing" ? std::string("No such file or directory")
                                                : "it is " + is + ", not a regular file") +
                               ". Check the dataset directory.");
  }
  return static_cast<uint64_t>(st.st_size);
}

struct GzipReader::Inflater {
  z_stream s{};
  bool initialized = false;
  std::vector<unsigned char> in = std::vector<unsigned char>(kInputBuffer);
  ~Inflater() {
    if (initialized) inflateEnd(&s);
  }
};

GzipReader::GzipReader(const std::string& where, std::string path)
    : where_(where), path_(std::move(path)) {
  fd_ = c10::open_regular_file(where_, path_, "Pass the path of the data file itself.");
  file_bytes_ = fd_.size();
  unsigned char magic[2] = {0, 0};
  gzip_ = ::pread(fd_.get(), magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (gzip_) {
    z_ = std::make_unique<Inflater>();
    // 16 + MAX_WBITS: a gzip wrapper, whose CRC-32 and length zlib checks.
    const int rc = inflateInit2(&z_->s, 16 + MAX_WBITS);
    if (rc != Z_OK) {
      C10_THROW_ERROR(Error, where_ + ": cannot read " + path_ + ": zlib cannot start (" +
                                 std::to_string(rc) + ").");
    }
    z_->initialized = true;
  }
}

GzipReader::~GzipReader() = default;

size_t GzipReader::read_plain(unsigned char* dst, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd_.get(), dst + done, std::min<size_t>(n - done, 1u << 30));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      C10_THROW_ERROR(Error, where_ + ": cannot read " + path_ + ": " + std::strerror(errno) + ".");
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

bool GzipReader::refill() {
  z_stream& s = z_->s;
  // Keep the unread input at the front, read behind it.
  if (s.avail_in > 0 && s.next_in != z_->in.data()) {
    std::memmove(z_->in.data(), s.next_in, s.avail_in);
  }
  s.next_in = z_->in.data();
  for (;;) {
    const ssize_t got =
        ::read(fd_.get(), z_->in.data() + s.avail_in, z_->in.size() - s.avail_in);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      C10_THROW_ERROR(Error, where_ + ": cannot read " + path_ + ": " + std::strerror(errno) + ".");
    }
    s.avail_in += static_cast<unsigned>(got);
    return got > 0;
  }
}

size_t GzipReader::read_gzip(unsigned char* dst, size_t n) {
  z_stream& s = z_->s;
  size_t done = 0;
  while (done < n && !cut_) {
    if (stream_end_) {
      // Another gzip member may follow (gzip allows concatenation); anything
      // else is refused rather than ignored.
      while (s.avail_in < 2 && refill()) {
      }
      if (s.avail_in == 0) return done;
      if (s.avail_in < 2 || s.next_in[0] != 0x1f || s.next_in[1] != 0x8b) {
        C10_THROW_ERROR(Error, where_ + ": " + path_ +
                                   " has trailing data after its gzip stream (bytes that are "
                                   "not another gzip member). The file is corrupt.");
      }
      inflateReset(&s);
      stream_end_ = false;
    }
    if (s.avail_in == 0 && !refill()) {
      cut_ = true;
      break;
    }
    s.next_out = dst + done;
    s.avail_out = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    const unsigned before = s.avail_out;
    const int rc = inflate(&s, Z_NO_FLUSH);
    done += before - s.avail_out;
    if (rc == Z_STREAM_END) {
      stream_end_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      C10_THROW_ERROR(Error, where_ + ": cannot read " + path_ + ": " +
                                 (s.msg != nullptr ? s.msg : "zlib error") +
                                 " (corrupt gzip data?).");
    }
  }
  return done;
}

size_t GzipReader::read(void* dst, size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  return gzip_ ? read_gzip(out, n) : read_plain(out, n);
}

void GzipReader::read_exactly(void* dst, size_t n, uint64_t offset, uint64_t expected_total) {
  const size_t got = read(dst, n);
  TORCH_CHECK(got == n, where_, ": ", path_, " is truncated: expected ", expected_total,
              " bytes of data, got ", offset + got, ". The file is incomplete; download it again.");
}

void GzipReader::expect_end(uint64_t expected_total) {
  unsigned char extra[64];
  const size_t got = read(extra, sizeof(extra));
  TORCH_CHECK(got == 0, where_, ": ", path_, " has trailing data: expected exactly ",
              expected_total, " bytes, got more. Is it the right file?");
  TORCH_CHECK(!cut_, where_, ": ", path_, " is truncated: its gzip stream ends before its "
              "trailer (CRC-32 and length), so the data cannot be verified. The file is "
              "incomplete; download it again.");
}

void GzipReader::check_can_hold(uint64_t bytes, const std::string& what) const {
  if (!gzip_) {
    TORCH_CHECK(bytes <= file_bytes_, where_, ": ", path_, " is truncated: expected ", bytes,
                " bytes of data, got ", file_bytes_, " (its header claims ", what,
                "). The file is incomplete or its header is corrupt; download it again.");
    return;
  }
  const uint64_t limit = file_bytes_ > UINT64_MAX / kMaxGzipRatio ? UINT64_MAX
                                                                   : file_bytes_ * kMaxGzipRatio;
  TORCH_CHECK(bytes <= limit, where_, ": ", path_, " claims ", what, " (", bytes,
              " bytes of data), but a gzip file of ", file_bytes_,
              " bytes decompresses to at most ", limit,
              " bytes. The header is corrupt or the file is truncated; download it again.");
}

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
