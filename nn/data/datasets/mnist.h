// nn/data/datasets/mnist.h — torch::data::datasets::MNIST: the MNIST (or
// Fashion-MNIST) IDX files as a dataset of [1, 28, 28] images and labels.
//
//   torch::data::datasets::MNIST test("/usr/share/datasets/fashion-mnist",
//                                     torch::data::datasets::MNIST::Mode::kTest);
//   test.size();     // 10000
//   test.get(0);     // {data: float [1, 28, 28] in [0, 1], target: int64 scalar}
//
// Reads, in `root`, train-images-idx3-ubyte and train-labels-idx1-ubyte
// (Mode::kTrain) or t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte
// (Mode::kTest), each either plain or gzipped (`<name>.gz`). Every header
// field and the file lengths are checked; see docs/data.md.
//
// The constructor loads everything; afterwards the dataset is read-only, so
// copies (which share the tensors) may be read from several threads.
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

// torch::data::datasets::MNIST
class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  // Loads the images and labels of `mode` from `root`. Throws if a file is
  // missing, has the wrong magic number or dimensions, is truncated or
  // longer than its header says, or holds a label above 9.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  // Ember's: loads only the first `limit` examples (0: all). Decoding stops
  // there, so a gzipped file's trailer (CRC) is checked only when the whole
  // file is read. See Note [Dataset file limits] in nn/data/datasets/file_reader.h.
  MNIST(const std::string& root, Mode mode, int64_t limit);

  // {images()[index], targets()[index]}: a [1, 28, 28] view and a 0-dim
  // int64 tensor. Throws if index >= size().
  Example<> get(size_t index) override;

  std::optional<size_t> size() const override;

  bool is_train() const noexcept;

  // All images, float32 [N, 1, 28, 28], values in [0, 1].
  const at::Tensor& images() const;

  // All labels, int64 [N], values in [0, 9].
  const at::Tensor& targets() const;

  // Ember's: the batch Stack<> would make of get(i) for each index, in one
  // index_select per tensor. See Note [Stacked batches] in
  // nn/data/datasets/map.h.
  Example<> get_stacked_batch(c10::ArrayRef<size_t> indices) const;

 private:
  at::Tensor images_;
  at::Tensor targets_;
  bool is_train_;
};

}  // namespace datasets
}  // namespace data
}  // namespace torch
