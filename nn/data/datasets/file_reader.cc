#include "nn/data/datasets/file_reader.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "c10/util/Exception.h"

namespace torch {
namespace data {
namespace datasets {
namespace detail {
namespace {

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string find_plain_or_gz(const std::string& where, const std::string& dir,
                             const std::string& name) {
  const std::string plain = dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
  if (is_regular_file(plain)) {
    return plain;
  }
  const std::string gz = plain + ".gz";
  if (is_regular_file(gz)) {
    return gz;
  }
  C10_THROW_ERROR(Error, where + ": file not found: neither " + plain + " nor " + gz +
                             " exists. Check the dataset directory.");
}

uint64_t file_size(const std::string& where, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    C10_THROW_ERROR(Error, where + ": cannot read " + path + ": " +
                               (errno != 0 ? std::strerror(errno) : "not a regular file") +
                               ". Check the dataset directory.");
  }
  return static_cast<uint64_t>(st.st_size);
}

GzipReader::GzipReader(const std::string& where, std::string path)
    : where_(where), path_(std::move(path)), file_(nullptr) {
  errno = 0;
  gzFile f = gzopen(path_.c_str(), "rb");
  TORCH_CHECK(f != nullptr, where_, ": cannot open ", path_, ": ",
              errno != 0 ? std::strerror(errno) : "out of memory", ".");
  // Large reads straight into the destination; 128 KiB of zlib buffer.
  gzbuffer(f, 128 * 1024);
  file_ = f;
}

GzipReader::~GzipReader() {
  if (file_ != nullptr) {
    gzclose(static_cast<gzFile>(file_));
  }
}

size_t GzipReader::read(void* dst, size_t n) {
  gzFile f = static_cast<gzFile>(file_);
  auto* out = static_cast<unsigned char*>(dst);
  size_t done = 0;
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    const int got = gzread(f, out + done, chunk);
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(f, &code);
      // Z_BUF_ERROR: the gzip stream ends before its trailer (a cut file);
      // the caller reports it as truncation.
      if (code == Z_BUF_ERROR) {
        gzclearerr(f);
        return done;
      }
      C10_THROW_ERROR(Error, where_ + ": cannot read " + path_ + ": " +
                                 (message != nullptr ? message : "zlib error") +
                                 " (corrupt gzip data?).");
    }
    if (got == 0) {
      return done;
    }
    done += static_cast<size_t>(got);
  }
  return done;
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
}

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
