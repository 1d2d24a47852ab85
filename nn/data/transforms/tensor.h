// nn/data/transforms/tensor.h — torch::data::transforms::TensorTransform,
// TensorLambda and Normalize: transforms of an example's data tensor.
//
//   auto normalized = torch::data::datasets::MNIST(root)
//                         .map(torch::data::transforms::Normalize<>(0.2860, 0.3530));
//
// The target passes through unchanged.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "aten/Functions.h"
#include "c10/util/ArrayRef.h"
#include "nn/data/example.h"
#include "nn/data/transforms/base.h"

namespace torch {
namespace data {
namespace transforms {

// torch::data::transforms::TensorTransform — a Transform of Example<Tensor,
// Target> defined by `operator()(Tensor)` on the data.
template <typename Target = at::Tensor>
class TensorTransform : public Transform<Example<at::Tensor, Target>, Example<at::Tensor, Target>> {
 public:
  using E = Example<at::Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;

  virtual at::Tensor operator()(at::Tensor input) = 0;

  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

// torch::data::transforms::TensorLambda — a TensorTransform from a function.
template <typename Target = at::Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<at::Tensor(at::Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}

  at::Tensor operator()(at::Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

// torch::data::transforms::Normalize — (data - mean) / stddev per channel.
//
// `mean` and `stddev` have one value, or one per channel; they are float32
// tensors of shape [C, 1, 1], so they broadcast over an image [C, H, W] (or
// a batch [B, C, H, W]). Ember checks its arguments (libtorch does not):
// both lists non-empty, of equal length or one of them of length 1, and
// every stddev non-zero.
template <typename Target = at::Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(c10::ArrayRef<double> mean, c10::ArrayRef<double> stddev)
      : mean(channel_tensor(mean, "mean")), stddev(channel_tensor(stddev, "stddev")) {
    TORCH_CHECK(mean.size() == stddev.size() || mean.size() == 1 || stddev.size() == 1,
                "Normalize: mean has ", mean.size(), " values and stddev ", stddev.size(),
                "; expected the same number (one per channel) or a single value.");
    for (const double s : stddev) {
      TORCH_CHECK(s != 0.0, "Normalize: stddev must be non-zero, got ", s,
                  ". Pass the standard deviation of the data.");
    }
  }
  Normalize(double mean, double stddev)
      : Normalize(c10::ArrayRef<double>(mean), c10::ArrayRef<double>(stddev)) {}

  at::Tensor operator()(at::Tensor input) override { return input.sub(mean).div(stddev); }

  // Normalizes a freshly gathered batch [B, ...] in place (Ember's; the
  // stacked fast path of MapDataset uses it). Each example must have at
  // least 3 dimensions, so that [C, 1, 1] broadcasts the same way over the
  // batch as over each example.
  at::Tensor normalize_batch_(at::Tensor batch) const {
    TORCH_INTERNAL_ASSERT(batch.dim() >= 4);
    batch.sub_(mean).div_(stddev);
    return batch;
  }

  at::Tensor mean;
  at::Tensor stddev;

 private:
  static at::Tensor channel_tensor(c10::ArrayRef<double> values, const char* name) {
    TORCH_CHECK(!values.empty(), "Normalize: expected at least one ", name,
                " value, got none. Pass one value, or one per channel.");
    at::Tensor t = at::empty({static_cast<int64_t>(values.size()), 1, 1}, at::kFloat);
    float* out = t.data_ptr<float>();
    for (size_t i = 0; i < values.size(); ++i) {
      out[i] = static_cast<float>(values[i]);
    }
    return t;
  }
};

}  // namespace transforms
}  // namespace data
}  // namespace torch
