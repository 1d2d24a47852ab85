// nn/enum.h — libtorch's enum tags: torch::kMean, torch::kSame, torch::kFanIn…
//
//   auto loss = F::mse_loss(x, y, F::MSELossFuncOptions().reduction(torch::kSum));
//   torch::nn::init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
//
// Each tag is an empty struct in torch::enumtype with one constant of that
// type in torch (as libtorch's TORCH_ENUM_DECLARE), so that an option can be
// a std::variant of exactly the tags it accepts and a wrong one fails to
// compile. get_enum_name() spells a tag for printing ("kMean").
#pragma once

#include <string>
#include <variant>

#define EMBER_NN_ENUM(name)                                        \
  namespace enumtype {                                             \
  struct k##name {                                                 \
    constexpr k##name() noexcept {}                                \
  };                                                               \
  inline std::string get_enum_name(k##name) { return "k" #name; } \
  }                                                                \
  inline constexpr enumtype::k##name k##name{};

namespace torch {

EMBER_NN_ENUM(None)
EMBER_NN_ENUM(Mean)
EMBER_NN_ENUM(Sum)
EMBER_NN_ENUM(BatchMean)
EMBER_NN_ENUM(Zeros)
EMBER_NN_ENUM(Reflect)
EMBER_NN_ENUM(Replicate)
EMBER_NN_ENUM(Circular)
EMBER_NN_ENUM(Same)
EMBER_NN_ENUM(Valid)
EMBER_NN_ENUM(FanIn)
EMBER_NN_ENUM(FanOut)
EMBER_NN_ENUM(Linear)
EMBER_NN_ENUM(Conv1D)
EMBER_NN_ENUM(Conv2D)
EMBER_NN_ENUM(Conv3D)
EMBER_NN_ENUM(ConvTranspose1D)
EMBER_NN_ENUM(ConvTranspose2D)
EMBER_NN_ENUM(ConvTranspose3D)
EMBER_NN_ENUM(Sigmoid)
EMBER_NN_ENUM(Tanh)
EMBER_NN_ENUM(ReLU)
EMBER_NN_ENUM(LeakyReLU)
EMBER_NN_ENUM(SELU)
EMBER_NN_ENUM(GELU)
EMBER_NN_ENUM(SiLU)
EMBER_NN_ENUM(Max)
EMBER_NN_ENUM(Nearest)
EMBER_NN_ENUM(Bilinear)
EMBER_NN_ENUM(Bicubic)
EMBER_NN_ENUM(Trilinear)
EMBER_NN_ENUM(Area)
EMBER_NN_ENUM(NearestExact)
EMBER_NN_ENUM(GRU)
EMBER_NN_ENUM(LSTM)
EMBER_NN_ENUM(RNN_TANH)
EMBER_NN_ENUM(RNN_RELU)

namespace enumtype {
// The name of the tag a variant holds, e.g. "kMean".
template <typename... Tags>
std::string get_enum_name(const std::variant<Tags...>& value) {
  return std::visit([](const auto& tag) { return get_enum_name(tag); }, value);
}
}  // namespace enumtype

}  // namespace torch

#undef EMBER_NN_ENUM
