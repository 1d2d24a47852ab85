// nn/data/datasets/cifar.h — torch::data::datasets::CIFAR10 (an Ember
// extension; libtorch has no CIFAR reader): CIFAR-10's binary version as a
// dataset of [3, 32, 32] images and labels.
//
//   torch::data::datasets::CIFAR10 train("/data/cifar-10-batches-bin");
//   train.size();   // 50000
//
// Reads, in `root`, data_batch_1.bin … data_batch_5.bin (Mode::kTrain) or
// test_batch.bin (Mode::kTest). Each file is a sequence of 3073-byte
// records: one label byte (0–9), then 1024 red, 1024 green and 1024 blue
// pixel bytes, row-major. Like MNIST it is read-only after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "aten/Tensor.h"
#include "c10/util/ArrayRef.h"
#include "nn/data/datasets/base.h"
#include "nn/data/example.h"

namespace torch {
namespace data {
namespace datasets {

// torch::data::datasets::CIFAR10
class CIFAR10 : public Dataset<CIFAR10> {
 public:
  enum class Mode { kTrain, kTest };

  // Loads the records of `mode` from `root`. Throws if a file is missing,
  // its length is not a whole number of records, or a label is above 9.
  explicit CIFAR10(const std::string& root, Mode mode = Mode::kTrain);

  // Ember's: loads only the first `limit` records (0: all); files past them
  // are not opened, and the last file read is read only up to them.
  CIFAR10(const std::string& root, Mode mode, int64_t limit);

  // {images()[index], targets()[index]}; throws if index >= size().
  Example<> get(size_t index) override;

  std::optional<size_t> size() const override;

  bool is_train() const noexcept;

  // All images, float32 [N, 3, 32, 32], values in [0, 1].
  const at::Tensor& images() const;

  // All labels, int64 [N], values in [0, 9].
  const at::Tensor& targets() const;

  // As MNIST::get_stacked_batch.
  Example<> get_stacked_batch(c10::ArrayRef<size_t> indices) const;

 private:
  at::Tensor images_;
  at::Tensor targets_;
  bool is_train_;
};

}  // namespace datasets
}  // namespace data
}  // namespace torch
