// nn/data/datasets/file_reader.h — reading dataset files, plain or gzipped
// (private to //nn/data).
//
//   GzipReader r("MNIST", path);                 // plain or gzip, by its magic; never
//                                                // blocks on a FIFO
//   r.read_exactly(buf, 16, 0, 16);
//   r.expect_end(total);                         // trailer, CRC, no trailing data
//
// Note [Dataset file limits]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every reader opens files with c10::open_regular_file (a FIFO, directory,
// device or symlink loop is refused by name, before any read can block; See
// Note [Opening and writing files] in c10/util/FileIO.h), and sizes
// its output from the header only after checking the header against the file:
// a plain file must hold the bytes its header claims; a gzip file can hold at
// most kMaxGzipRatio times its compressed size (deflate's limit), so a corrupt
// count is refused before anything is allocated. A gzip stream must end with
// its trailer (CRC-32 and length, both checked by zlib), and nothing may follow
// the last gzip member. Readers asked for only the first N examples stop
// decoding there: the rest of the file, its CRC included, is not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "c10/util/FileIO.h"

namespace torch {
namespace data {
namespace datasets {
namespace detail {

// Deflate's best compression ratio is 1032:1; a gzip file of S bytes cannot
// decompress to more than kMaxGzipRatio * S bytes.
constexpr uint64_t kMaxGzipRatio = 1032;

// `dir/name` if it is a regular file, else `dir/name.gz` if that is;
// throws naming `where` and both paths if neither exists, or naming the path
// and what it is if something other than a regular file is there.
std::string find_plain_or_gz(const std::string& where, const std::string& dir,
                             const std::string& name);

// The size of a regular file in bytes; throws (naming `where`, the path and
// what it is) for anything else.
uint64_t file_size(const std::string& where, const std::string& path);

// A file opened for reading, plain or gzip (told apart by the gzip magic
// 1f 8b). Not thread-safe; closes on destruction.
class GzipReader {
 public:
  GzipReader(const std::string& where, std::string path);
  ~GzipReader();  // closes the file
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Reads up to `n` bytes into `dst`; returns how many were read: fewer
  // than `n` only at the end of the data (a gzip stream cut short counts as
  // its end; expect_end then reports it). Throws on corrupt data (a bad CRC
  // or length included) or an I/O error.
  size_t read(void* dst, size_t n);

  // Reads exactly `n` bytes, else throws "<where>: <path> is truncated:
  // expected <expected_total> bytes, got <actual>", where the actual count
  // is `offset` plus what was read (the total stays what the caller knows
  // the file must hold).
  void read_exactly(void* dst, size_t n, uint64_t offset, uint64_t expected_total);

  // Throws if any byte follows what was read ("<path> has trailing data"),
  // if the gzip stream lacks its trailer, or if anything that is not another
  // gzip member follows the stream.
  void expect_end(uint64_t expected_total);

  // Checks, before allocating for them, that the file can hold `bytes`
  // bytes of data (see Note [Dataset file limits]); throws naming the path,
  // `what` the header claims, and the limit.
  void check_can_hold(uint64_t bytes, const std::string& what) const;

  bool is_gzip() const noexcept { return gzip_; }
  uint64_t file_bytes() const noexcept { return file_bytes_; }
  const std::string& path() const noexcept { return path_; }

 private:
  size_t read_plain(unsigned char* dst, size_t n);
  size_t read_gzip(unsigned char* dst, size_t n);
  // Refills the input buffer; false at end of file.
  bool refill();

  std::string where_;
  std::string path_;
  c10::UniqueFd fd_;
  bool gzip_ = false;
  bool stream_end_ = false;  // the current gzip member ended (trailer checked)
  bool cut_ = false;         // the file ended inside a gzip member
  uint64_t file_bytes_ = 0;
  struct Inflater;
  std::unique_ptr<Inflater> z_;
};

// The big-endian 32-bit integer at `p` (IDX headers are big-endian).
inline uint32_t read_be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
