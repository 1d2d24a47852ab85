// Polynomial regression written as libtorch's C++ regression example is: a
// Linear layer fits y = w·[x, x², x³, x⁴] + b with smooth_l1_loss and SGD
// on random batches until the loss is below 1e-3, then prints the learned
// and the target function.
#include <gtest/gtest.h>

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

#include <torch/torch.h>

namespace {

const int64_t kPolyDegree = 4;

// [x, x², x³, x⁴] for each x of a batch [N]: [N, 4].
torch::Tensor make_features(const torch::Tensor& x) {
  auto column = x.unsqueeze(1);
  return torch::cat({column, column.pow(2), column.pow(3), column.pow(4)}, 1);
}

torch::Tensor f(const torch::Tensor& x, const torch::Tensor& w_target,
                const torch::Tensor& b_target) {
  return x.mm(w_target) + b_target.item();
}

std::string poly_desc(const torch::Tensor& w, const torch::Tensor& b) {
  auto size = w.size(0);
  std::ostringstream stream;
  stream << "y = ";
  for (int64_t i = 0; i < size; ++i) {
    stream << std::fixed << std::setprecision(2) << w[i].item<float>() << " x^" << size - i
           << " ";
  }
  stream << "+ " << b[0].item<float>();
  return stream.str();
}

std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& w_target,
                                                  const torch::Tensor& b_target,
                                                  int64_t batch_size = 32) {
  auto random = torch::randn({batch_size});
  auto x = make_features(random);
  auto y = f(x, w_target, b_target);
  return std::make_pair(x, y);
}

TEST(RegressionExample, FitsAPolynomialWithSmoothL1Loss) {
  torch::manual_seed(0);
  auto w_target = torch::randn({kPolyDegree, 1}) * 0.5;
  auto b_target = torch::randn({1}) * 0.5;

  auto fc = torch::nn::Linear(w_target.size(0), 1);
  torch::optim::SGD optim(fc->parameters(), torch::optim::SGDOptions(0.02));

  float loss = 0;
  int64_t batch_idx = 0;
  while (++batch_idx < 20000) {
    torch::Tensor batch_x, batch_y;
    std::tie(batch_x, batch_y) = get_batch(w_target, b_target);
    optim.zero_grad();
    auto output = torch::smooth_l1_loss(fc(batch_x), batch_y);
    loss = output.item<float>();
    output.backward();
    optim.step();
    if (loss < 1e-3f) break;
  }

  std::cout << "Loss: " << loss << " after " << batch_idx << " batches" << std::endl;
  std::cout << "==> Learned function:\t" << poly_desc(fc->weight.view({-1}), fc->bias)
            << std::endl;
  std::cout << "==> Actual function:\t" << poly_desc(w_target.view({-1}), b_target) << std::endl;
  EXPECT_LT(loss, 1e-3f);
  EXPECT_LT(batch_idx, 20000);
  EXPECT_TRUE(torch::allclose(fc->weight.view({-1}), w_target.view({-1}), 0, 0.1));
  EXPECT_NEAR(fc->bias[0].item<float>(), b_target[0].item<float>(), 0.1);
}

}  // namespace
