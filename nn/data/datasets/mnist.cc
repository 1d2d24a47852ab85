#include "nn/data/datasets/mnist.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "nn/data/datasets/file_reader.h"
#include "nn/data/datasets/idx_reader.h"
#include "nn/data/datasets/rows.h"

namespace torch {
namespace data {
namespace datasets {
namespace {

constexpr char kWhere[] = "MNIST";
constexpr uint32_t kImageMagic = 2051;
constexpr uint32_t kLabelMagic = 2049;
constexpr int64_t kRows = 28;
constexpr int64_t kColumns = 28;
constexpr int64_t kImageBytes = kRows * kColumns;
// Images decoded per chunk: the only buffer besides the output (784 KiB).
constexpr int64_t kChunkImages = 1024;
constexpr int64_t kMaxLabel = 9;

void check_magic(const detail::GzipReader& file, uint32_t magic, uint32_t expected,
                 const char* what) {
  TORCH_CHECK(magic == expected, kWhere, ": ", file.path(), " has magic number ", magic,
              ", expected ", expected, " (an IDX file of ", what,
              "). Check that the file is the MNIST ", what, " file it is named after.");
}

// at::empty, with an allocation failure reported against the file whose
// header asked for the memory.
at::Tensor allocate(const std::string& path, c10::IntArrayRef sizes, at::ScalarType dtype,
                    int64_t count, const char* what) {
  try {
    return at::empty(sizes, dtype);
  } catch (const c10::Error& e) {
    C10_THROW_ERROR(Error, std::string(kWhere) + ": cannot allocate memory for the " +
                               std::to_string(count) + " " + what + " of " + path + ": " +
                               e.what_without_backtrace());
  }
}

}  // namespace

namespace detail {

// Decodes the images file straight into a float tensor, a chunk of bytes at
// a time, so that loading peaks at the output plus one chunk.
at::Tensor read_idx_images(const std::string& path, int64_t limit, int64_t* count_in_file) {
  GzipReader file(kWhere, path);
  unsigned char header[16];
  file.read_exactly(header, sizeof(header), 0, sizeof(header));
  check_magic(file, read_be32(header), kImageMagic, "images");
  const uint32_t count = read_be32(header + 4);
  const uint32_t rows = read_be32(header + 8);
  const uint32_t columns = read_be32(header + 12);
  TORCH_CHECK(rows == kRows && columns == kColumns, kWhere, ": ", path, " holds images of ", rows,
              "x", columns, " pixels, expected ", kRows, "x", kColumns, ".");
  TORCH_CHECK(count <= INT32_MAX, kWhere, ": ", path, " claims ", count,
              " images; expected at most ", INT32_MAX, ". The header is corrupt.");
  if (count_in_file != nullptr) *count_in_file = count;
  const int64_t n = limit > 0 ? std::min<int64_t>(count, limit) : static_cast<int64_t>(count);
  const uint64_t total = sizeof(header) + static_cast<uint64_t>(count) * kImageBytes;
  file.check_can_hold(sizeof(header) + static_cast<uint64_t>(n) * kImageBytes,
                      std::to_string(count) + " images");

  at::Tensor images = allocate(path, {n, 1, kRows, kColumns}, at::kFloat, n, "images");
  at::Tensor chunk = at::empty({std::min(n, kChunkImages), 1, kRows, kColumns}, at::kByte);
  for (int64_t start = 0; start < n; start += kChunkImages) {
    const int64_t len = std::min(kChunkImages, n - start);
    at::Tensor bytes = chunk.narrow(0, 0, len);
    file.read_exactly(bytes.data_ptr<uint8_t>(), static_cast<size_t>(len * kImageBytes),
                      sizeof(header) + static_cast<uint64_t>(start) * kImageBytes, total);
    images.narrow(0, start, len).copy_(bytes);
  }
  // Only a file read to its end is checked for its trailer and extra bytes.
  if (n == static_cast<int64_t>(count)) file.expect_end(total);
  images.div_(255);
  return images;
}

at::Tensor read_idx_labels(const std::string& path, int64_t expected_count, int64_t limit,
                           const std::string& images_path) {
  GzipReader file(kWhere, path);
  unsigned char header[8];
  file.read_exactly(header, sizeof(header), 0, sizeof(header));
  check_magic(file, read_be32(header), kLabelMagic, "labels");
  const uint32_t count = read_be32(header + 4);
  TORCH_CHECK(static_cast<int64_t>(count) == expected_count, kWhere, ": ", path, " holds ", count,
              " labels but ", images_path, " holds ", expected_count,
              " images; expected one label per image. Are the files from the same set?");
  const int64_t n = limit > 0 ? std::min<int64_t>(count, limit) : static_cast<int64_t>(count);
  const uint64_t total = sizeof(header) + static_cast<uint64_t>(count);
  file.check_can_hold(sizeof(header) + static_cast<uint64_t>(n), std::to_string(count) + " labels");
  at::Tensor bytes = allocate(path, {n}, at::kByte, n, "labels");
  file.read_exactly(bytes.data_ptr<uint8_t>(), static_cast<size_t>(n), sizeof(header), total);
  if (n == static_cast<int64_t>(count)) file.expect_end(total);
  if (n > 0) {
    const int64_t max_label = bytes.max().item<int64_t>();
    TORCH_CHECK(max_label <= kMaxLabel, kWhere, ": ", path, " holds the label ", max_label,
                ", expected labels in [0, ", kMaxLabel, "]. The file is corrupt.");
  }
  return bytes.to(at::kLong);
}

}  // namespace detail

MNIST::MNIST(const std::string& root, Mode mode) : MNIST(root, mode, 0) {}

MNIST::MNIST(const std::string& root, Mode mode, int64_t limit) : is_train_(mode == Mode::kTrain) {
  TORCH_CHECK(limit >= 0, kWhere, ": the limit of examples must be >= 0 (0: all), got ", limit,
              ".");
  // Loading builds no graph, whatever the caller's grad mode.
  torch::NoGradGuard no_grad;
  const char* prefix = is_train_ ? "train" : "t10k";
  const std::string images_path =
      detail::find_plain_or_gz(kWhere, root, std::string(prefix) + "-images-idx3-ubyte");
  const std::string labels_path =
      detail::find_plain_or_gz(kWhere, root, std::string(prefix) + "-labels-idx1-ubyte");
  int64_t count = 0;
  images_ = detail::read_idx_images(images_path, limit, &count);
  targets_ = detail::read_idx_labels(labels_path, count, limit, images_path);
}

Example<> MNIST::get(size_t index) { return detail::row(kWhere, images_, targets_, index); }

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

bool MNIST::is_train() const noexcept { return is_train_; }

const at::Tensor& MNIST::images() const { return images_; }

const at::Tensor& MNIST::targets() const { return targets_; }

Example<> MNIST::get_stacked_batch(c10::ArrayRef<size_t> indices) const {
  return detail::gather_rows(kWhere, images_, targets_, indices);
}

}  // namespace datasets
}  // namespace data
}  // namespace torch
