#include "nn/init.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"

namespace torch {
namespace nn {
namespace init {
namespace {

void check_defined(const char* where, const Tensor& tensor) {
  TORCH_CHECK(tensor.defined(), "nn::init::", where,
              ": the tensor is undefined; pass a defined tensor (e.g. a module's weight).");
}

void check_floating(const char* where, const Tensor& tensor) {
  check_defined(where, tensor);
  TORCH_CHECK(c10::isFloatingType(tensor.scalar_type()), "nn::init::", where,
              ": expected a floating-point tensor, but got ", tensor.scalar_type(), ".");
}

double fan_of(const char* where, const Tensor& tensor, const FanModeType& mode) {
  check_floating(where, tensor);
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const int64_t fan = std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
  TORCH_CHECK(fan > 0, "nn::init::", where, ": the fan is 0 for a tensor of sizes ",
              tensor.sizes(), "; initializing a tensor with zero elements is not possible.");
  return static_cast<double>(fan);
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  if (std::holds_alternative<enumtype::kTanh>(nonlinearity)) return 5.0 / 3.0;
  if (std::holds_alternative<enumtype::kReLU>(nonlinearity)) return std::sqrt(2.0);
  if (std::holds_alternative<enumtype::kLeakyReLU>(nonlinearity)) {
    return std::sqrt(2.0 / (1 + param * param));
  }
  if (std::holds_alternative<enumtype::kSELU>(nonlinearity)) return 3.0 / 4.0;
  return 1.0;  // linear, convolutions, sigmoid
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  check_defined("_calculate_fan_in_and_fan_out", tensor);
  TORCH_CHECK(tensor.dim() >= 2, "nn::init::_calculate_fan_in_and_fan_out: fan in and fan out "
              "cannot be computed for a tensor with fewer than 2 dimensions (sizes ",
              tensor.sizes(), "); pass a weight [out, in, ...].");
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor constant_(Tensor tensor, c10::Scalar value) {
  check_defined("constant_", tensor);
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor ones_(Tensor tensor) {
  check_defined("ones_", tensor);
  NoGradGuard no_grad;
  return tensor.fill_(1);
}

Tensor zeros_(Tensor tensor) {
  check_defined("zeros_", tensor);
  NoGradGuard no_grad;
  return tensor.zero_();
}

Tensor eye_(Tensor matrix) {
  check_defined("eye_", matrix);
  TORCH_CHECK(matrix.dim() == 2, "nn::init::eye_: only 2-d tensors are supported, but got "
              "sizes ", matrix.sizes(), ".");
  NoGradGuard no_grad;
  return at::eye_out(matrix, matrix.size(0), matrix.size(1));
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_floating("uniform_", tensor);
  TORCH_CHECK(low <= high, "nn::init::uniform_: low must not exceed high, but got low=", low,
              ", high=", high, ".");
  NoGradGuard no_grad;
  return tensor.uniform_(low, high);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_floating("normal_", tensor);
  TORCH_CHECK(std >= 0, "nn::init::normal_: std must be non-negative, but got ", std, ".");
  NoGradGuard no_grad;
  return tensor.normal_(mean, std);
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  check_floating("xavier_uniform_", tensor);
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  TORCH_CHECK(fan_in + fan_out > 0, "nn::init::xavier_uniform_: the tensor has no elements "
              "(sizes ", tensor.sizes(), ").");
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;
  NoGradGuard no_grad;
  return tensor.uniform_(-a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  check_floating("xavier_normal_", tensor);
  const auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  TORCH_CHECK(fan_in + fan_out > 0, "nn::init::xavier_normal_: the tensor has no elements "
              "(sizes ", tensor.sizes(), ").");
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  NoGradGuard no_grad;
  return tensor.normal_(0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode,
                        NonlinearityType nonlinearity) {
  const double fan = fan_of("kaiming_uniform_", tensor, mode);
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan);
  const double bound = std::sqrt(3.0) * std;
  NoGradGuard no_grad;
  return tensor.uniform_(-bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode,
                       NonlinearityType nonlinearity) {
  const double fan = fan_of("kaiming_normal_", tensor, mode);
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan);
  NoGradGuard no_grad;
  return tensor.normal_(0, std);
}

}  // namespace init
}  // namespace nn
}  // namespace torch
