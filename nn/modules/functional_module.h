// nn/modules/functional_module.h — torch::nn::Functional: a function as a
// module, to put it in a Sequential (libtorch's torch/nn/modules/functional.h).
//
//   torch::nn::Sequential net(torch::nn::Linear(4, 8),
//                             torch::nn::Functional(torch::relu),
//                             torch::nn::Functional(torch::leaky_relu, 0.2),
//                             torch::nn::Functional([](torch::Tensor x) { return x * 2; }));
//
// Extra arguments are bound after the input: Functional(f, a, b) calls
// f(input, a, b). The module has no parameters and is not saved by
// torch::save (is_serializable() is false); clone() shares the function.
#pragma once

#include <functional>
#include <ostream>
#include <tuple>
#include <utility>

#include "nn/cloneable.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::FunctionalImpl
class FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function) : function_(std::move(function)) {
    TORCH_CHECK(function_ != nullptr, "torch::nn::Functional: the function is empty; "
                "pass a callable taking a Tensor and returning a Tensor.");
  }
  template <typename SomeFunction, typename Arg, typename... Args>
  FunctionalImpl(SomeFunction original, Arg&& arg, Args&&... args)
      : FunctionalImpl(Function([original, bound = std::make_tuple(std::forward<Arg>(arg),
                                                                   std::forward<Args>(args)...)](
                                    Tensor input) -> Tensor {
          return std::apply(
              [&](const auto&... extra) { return Tensor(original(input, extra...)); }, bound);
        })) {}

  void reset() override {}
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Functional()"; }
  bool is_serializable() const override { return false; }

  Tensor forward(Tensor input) { return function_(std::move(input)); }

 private:
  Function function_;
};
TORCH_MODULE(Functional);

}  // namespace nn
}  // namespace torch
