// The training steps of DESIGN.md's performance budget, written once against
// the torch API that Ember and libtorch share, so that train_step_bench (Ember)
// and libtorch_ops.cc (Debian's libtorch, see libtorch_side_by_side.sh) time
// the very same code:
//   mlp: 784-512-256-10 with ReLU, batch 128, cross entropy, SGD lr 0.1
//        momentum 0.9 (the Fashion-MNIST default of tools:train);
//   cnn: conv 3x3 1->32 (pad 1), ReLU, max pool 2, conv 3x3 32->64 (pad 1),
//        ReLU, max pool 2, linear 3136->10, batch 64, same loss and optimizer.
// Parameters are plain leaf tensors (no nn modules) so that the workload
// measures the ops, autograd and the update, nothing else.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace train_step {

struct Param {
  at::Tensor value;
  at::Tensor momentum;
};

inline Param make_param(std::vector<int64_t> shape, int64_t fan_in) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  at::Tensor v = at::rand(shape).mul_(2 * bound).sub_(bound);
  v.requires_grad_(true);
  return Param{v, at::Tensor()};
}

// One SGD step with momentum 0.9 and lr 0.1 (PyTorch's rule: the first step
// takes the gradient as the buffer), after which the gradients are cleared.
inline void sgd_step(std::vector<Param>& params) {
  at::NoGradGuard no_grad;
  for (Param& p : params) {
    const at::Tensor& g = p.value.grad();
    if (!p.momentum.defined()) {
      p.momentum = g.clone();
    } else {
      p.momentum.mul_(0.9).add_(g);
    }
    p.value.add_(p.momentum, -0.1);
    p.value.mutable_grad() = at::Tensor();
  }
}

struct Mlp {
  std::vector<Param> params;
  at::Tensor x, y;
  Mlp() {
    at::manual_seed(0);
    params.push_back(make_param({512, 784}, 784));
    params.push_back(make_param({512}, 784));
    params.push_back(make_param({256, 512}, 512));
    params.push_back(make_param({256}, 512));
    params.push_back(make_param({10, 256}, 256));
    params.push_back(make_param({10}, 256));
    x = at::rand({128, 784});
    y = at::randint(0, 10, {128});
  }
  double step() {
    at::Tensor h = at::relu(at::linear(x, params[0].value, params[1].value));
    h = at::relu(at::linear(h, params[2].value, params[3].value));
    at::Tensor logits = at::linear(h, params[4].value, params[5].value);
    at::Tensor loss = at::cross_entropy_loss(logits, y);
    loss.backward();
    sgd_step(params);
    return loss.item<double>();
  }
};

struct Cnn {
  std::vector<Param> params;
  at::Tensor x, y;
  Cnn() {
    at::manual_seed(0);
    params.push_back(make_param({32, 1, 3, 3}, 9));
    params.push_back(make_param({32}, 9));
    params.push_back(make_param({64, 32, 3, 3}, 288));
    params.push_back(make_param({64}, 288));
    params.push_back(make_param({10, 3136}, 3136));
    params.push_back(make_param({10}, 3136));
    x = at::rand({64, 1, 28, 28});
    y = at::randint(0, 10, {64});
  }
  double step() {
    at::Tensor h = at::conv2d(x, params[0].value, params[1].value, 1, 1);
    h = at::max_pool2d(at::relu(h), 2);
    h = at::conv2d(h, params[2].value, params[3].value, 1, 1);
    h = at::max_pool2d(at::relu(h), 2);
    at::Tensor logits = at::linear(h.flatten(1), params[4].value, params[5].value);
    at::Tensor loss = at::cross_entropy_loss(logits, y);
    loss.backward();
    sgd_step(params);
    return loss.item<double>();
  }
};

}  // namespace train_step
