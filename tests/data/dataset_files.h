// Small dataset files for the reader tests: IDX (MNIST) and CIFAR-10 binary
// records, written plain or gzipped into the test's temporary directory.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace ember_test {

using Bytes = std::vector<unsigned char>;

// A fresh directory under TEST_TMPDIR.
inline std::string fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

inline void put_be32(Bytes& out, uint32_t v) {
  out.push_back(static_cast<unsigned char>(v >> 24));
  out.push_back(static_cast<unsigned char>(v >> 16));
  out.push_back(static_cast<unsigned char>(v >> 8));
  out.push_back(static_cast<unsigned char>(v));
}

// An IDX images file: magic, count, rows, cols, then pixel i of image n is
// (n * 7 + i) % 256.
inline Bytes idx_images(uint32_t count, uint32_t rows = 28, uint32_t cols = 28,
                        uint32_t magic = 2051) {
  Bytes out;
  put_be32(out, magic);
  put_be32(out, count);
  put_be32(out, rows);
  put_be32(out, cols);
  for (uint32_t n = 0; n < count; ++n) {
    for (uint32_t i = 0; i < rows * cols; ++i) {
      out.push_back(static_cast<unsigned char>((n * 7 + i) % 256));
    }
  }
  return out;
}

// An IDX labels file: label n is n % 10 unless `labels` is given.
inline Bytes idx_labels(uint32_t count, uint32_t magic = 2049, Bytes labels = {}) {
  Bytes out;
  put_be32(out, magic);
  put_be32(out, count);
  for (uint32_t n = 0; n < count; ++n) {
    out.push_back(labels.empty() ? static_cast<unsigned char>(n % 10) : labels[n]);
  }
  return out;
}

inline void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

inline void write_gz(const std::string& path, const Bytes& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  if (!bytes.empty()) {
    ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
              static_cast<int>(bytes.size()));
  }
  ASSERT_EQ(gzclose(f), Z_OK);
}

inline Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// CIFAR-10 records: label (n * 3) % 10 unless `labels`, pixel i of record n
// is (n + i) % 256.
inline Bytes cifar_records(uint32_t count, uint32_t first = 0, Bytes labels = {}) {
  Bytes out;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t n = first + k;
    out.push_back(labels.empty() ? static_cast<unsigned char>((n * 3) % 10) : labels[k]);
    for (uint32_t i = 0; i < 3072; ++i) {
      out.push_back(static_cast<unsigned char>((n + i) % 256));
    }
  }
  return out;
}

}  // namespace ember_test
