// nn/data/datasets/file_reader.h — reading dataset files, plain or gzipped
// (private to //nn/data).
//
// GzipReader reads a file through zlib, which passes plain files through
// unchanged, so one code path serves `x` and `x.gz`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace torch {
namespace data {
namespace datasets {
namespace detail {

// `dir/name` if it exists, else `dir/name.gz` if that exists; otherwise
// throws, naming both paths and `where`.
std::string find_plain_or_gz(const std::string& where, const std::string& dir,
                             const std::string& name);

// The size of a file in bytes; throws (naming `where` and the path) if it
// cannot be read.
uint64_t file_size(const std::string& where, const std::string& path);

// A file opened for reading, plain or gzip. Not thread-safe; closes on
// destruction.
class GzipReader {
 public:
  GzipReader(const std::string& where, std::string path);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Reads up to `n` bytes into `dst`; returns how many were read: fewer
  // than `n` only at the end of the data (a gzip stream cut short counts
  // as its end). Throws on corrupt data or an I/O error.
  size_t read(void* dst, size_t n);

  // Reads exactly `n` bytes, else throws "<where>: <path> is truncated:
  // expected <expected_total> bytes, got <actual>", where the actual count
  // is `offset` plus what was read (the total stays what the caller knows
  // the file must hold).
  void read_exactly(void* dst, size_t n, uint64_t offset, uint64_t expected_total);

  // Throws if any byte follows what was read: "<path> has trailing data".
  void expect_end(uint64_t expected_total);

  const std::string& path() const noexcept { return path_; }

 private:
  std::string where_;
  std::string path_;
  void* file_;  // gzFile, kept opaque to keep zlib.h out of this header
};

// The big-endian 32-bit integer at `p` (IDX headers are big-endian).
inline uint32_t read_be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
