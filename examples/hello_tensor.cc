// The smallest Ember program: a libtorch-style program with its build file
// changed (examples/BUILD.bazel) and nothing else.
//
//   ./bazelw run //examples:hello_tensor
#include <iostream>

#include <torch/torch.h>

int main() {
  torch::Tensor x = torch::ones({2, 3});
  torch::Tensor w = torch::full({4, 3}, 0.5);
  torch::Tensor y = torch::linear(x, w, torch::zeros({4})) + 1;
  std::cout << y << "\n";
  std::cout << "y[0][0] = " << y.select(0, 0).select(0, 0).item<float>() << "\n";
  return 0;
}
