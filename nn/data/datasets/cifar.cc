#include "nn/data/datasets/cifar.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "nn/data/datasets/file_reader.h"
#include "nn/data/datasets/rows.h"

namespace torch {
namespace data {
namespace datasets {
namespace {

constexpr char kWhere[] = "CIFAR10";
constexpr int64_t kImageBytes = 3 * 32 * 32;
constexpr int64_t kRecordBytes = 1 + kImageBytes;
constexpr int64_t kChunkRecords = 256;  // 768 KiB of buffer
constexpr int64_t kMaxLabel = 9;

std::vector<std::string> file_names(bool train) {
  if (!train) {
    return {"test_batch.bin"};
  }
  return {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
          "data_batch_5.bin"};
}

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

}  // namespace

CIFAR10::CIFAR10(const std::string& root, Mode mode) : CIFAR10(root, mode, 0) {}

CIFAR10::CIFAR10(const std::string& root, Mode mode, int64_t limit)
    : is_train_(mode == Mode::kTrain) {
  torch::NoGradGuard no_grad;
  TORCH_CHECK(limit >= 0, kWhere, ": the limit of examples must be >= 0 (0: all), got ", limit,
              ".");
  // Sizes first, so the output is allocated once and filled in place; files
  // past the limit are not opened.
  std::vector<std::string> paths;
  std::vector<int64_t> records;
  int64_t n = 0;
  for (const std::string& name : file_names(is_train_)) {
    if (limit > 0 && n >= limit) break;
    const std::string path = join(root, name);
    const uint64_t bytes = detail::file_size(kWhere, path);
    const uint64_t whole = bytes / kRecordBytes;
    TORCH_CHECK(bytes % kRecordBytes == 0, kWhere, ": ", path, " is truncated: expected ",
                (whole + 1) * kRecordBytes, " bytes (a whole number of ", kRecordBytes,
                "-byte records), got ", bytes, ". The file is incomplete; download it again.");
    const int64_t take = limit > 0 ? std::min<int64_t>(static_cast<int64_t>(whole), limit - n)
                                   : static_cast<int64_t>(whole);
    paths.push_back(path);
    records.push_back(take);
    n += take;
  }

  try {
    images_ = at::empty({n, 3, 32, 32}, at::kFloat);
  } catch (const c10::Error& e) {
    C10_THROW_ERROR(Error, std::string(kWhere) + ": cannot allocate memory for the " +
                               std::to_string(n) + " images of " + root + ": " +
                               e.what_without_backtrace());
  }
  targets_ = at::empty({n}, at::kLong);
  at::Tensor chunk =
      at::empty({std::max<int64_t>(std::min(n, kChunkRecords), 1), kRecordBytes}, at::kByte);
  at::Tensor flat_images = images_.view({n, kImageBytes});
  int64_t row = 0;
  for (size_t f = 0; f < paths.size(); ++f) {
    detail::GzipReader file(kWhere, paths[f]);
    const uint64_t total = file.file_bytes();
    file.check_can_hold(static_cast<uint64_t>(records[f]) * kRecordBytes,
                        std::to_string(records[f]) + " records");
    for (int64_t start = 0; start < records[f]; start += kChunkRecords) {
      const int64_t len = std::min(kChunkRecords, records[f] - start);
      at::Tensor bytes = chunk.narrow(0, 0, len);
      file.read_exactly(bytes.data_ptr<uint8_t>(), static_cast<size_t>(len * kRecordBytes),
                        static_cast<uint64_t>(start) * kRecordBytes, total);
      at::Tensor labels = bytes.select(1, 0);
      const int64_t max_label = labels.max().item<int64_t>();
      TORCH_CHECK(max_label <= kMaxLabel, kWhere, ": ", paths[f], " holds the label ", max_label,
                  " in records ", start, "..", start + len - 1, ", expected labels in [0, ",
                  kMaxLabel, "]. The file is corrupt.");
      targets_.narrow(0, row + start, len).copy_(labels);
      flat_images.narrow(0, row + start, len).copy_(bytes.narrow(1, 1, kImageBytes));
    }
    // A file read to its end must end there (it may have grown since stat).
    if (static_cast<uint64_t>(records[f]) * kRecordBytes == total) file.expect_end(total);
    row += records[f];
  }
  images_.div_(255);
}

Example<> CIFAR10::get(size_t index) { return detail::row(kWhere, images_, targets_, index); }

std::optional<size_t> CIFAR10::size() const { return static_cast<size_t>(images_.size(0)); }

bool CIFAR10::is_train() const noexcept { return is_train_; }

const at::Tensor& CIFAR10::images() const { return images_; }

const at::Tensor& CIFAR10::targets() const { return targets_; }

Example<> CIFAR10::get_stacked_batch(c10::ArrayRef<size_t> indices) const {
  return detail::gather_rows(kWhere, images_, targets_, indices);
}

}  // namespace datasets
}  // namespace data
}  // namespace torch
