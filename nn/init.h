// nn/init.h — torch::nn::init: in-place initializers of parameters, as
// libtorch's torch/nn/init.h.
//
//   torch::manual_seed(0);
//   torch::nn::init::kaiming_normal_(conv->weight, 0, torch::kFanOut, torch::kReLU);
//   torch::nn::init::zeros_(conv->bias);
//
// Every initializer fills its tensor in place under NoGradGuard (so it
// works on parameters that require grad) and returns it. Random ones draw
// from the default CPU generator, so torch::manual_seed makes them
// reproducible.
#pragma once

#include <cstdint>
#include <tuple>
#include <variant>

#include "c10/core/Scalar.h"
#include "nn/enum.h"
#include "nn/types.h"

namespace torch {
namespace nn {
namespace init {

using NonlinearityType =
    std::variant<enumtype::kLinear, enumtype::kConv1D, enumtype::kConv2D, enumtype::kConv3D,
                 enumtype::kConvTranspose1D, enumtype::kConvTranspose2D,
                 enumtype::kConvTranspose3D, enumtype::kSigmoid, enumtype::kTanh,
                 enumtype::kReLU, enumtype::kLeakyReLU, enumtype::kSELU>;
using FanModeType = std::variant<enumtype::kFanIn, enumtype::kFanOut>;

// The recommended gain of a nonlinearity: 1 for linear, convolutions and
// sigmoid, 5/3 for tanh, sqrt(2) for ReLU, sqrt(2 / (1 + param^2)) for
// leaky ReLU with negative slope `param`, 3/4 for SELU.
double calculate_gain(NonlinearityType nonlinearity, double param = 0.01);

// (fan_in, fan_out) of a weight of at least 2 dimensions: size(1) and
// size(0) times the receptive field (the product of the sizes after dim 1).
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor constant_(Tensor tensor, c10::Scalar value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
// The identity matrix (2-d tensors only; rectangular ones get ones on the
// main diagonal).
Tensor eye_(Tensor matrix);
// U(low, high).
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
// N(mean, std^2).
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
// U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
// U(-b, b) with b = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a)
// and fan the fan_in or fan_out (mode).
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                        NonlinearityType nonlinearity = torch::kLeakyReLU);
// N(0, std^2) with std = gain / sqrt(fan).
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanModeType mode = torch::kFanIn,
                       NonlinearityType nonlinearity = torch::kLeakyReLU);

}  // namespace init
}  // namespace nn
}  // namespace torch
