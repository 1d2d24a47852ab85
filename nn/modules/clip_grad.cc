#include "nn/modules/clip_grad.h"

#include <cmath>
#include <limits>

#include "c10/util/Exception.h"

namespace torch {
namespace nn {
namespace utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  const bool inf_norm = std::isinf(norm_type);
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) {
    norms.push_back(inf_norm ? g.abs().max().to(at::kDouble)
                             : at::linalg_vector_norm(g, norm_type).to(at::kDouble));
  }
  const Tensor stacked = at::stack(norms);
  const double total = inf_norm ? stacked.max().item<double>()
                                : at::linalg_vector_norm(stacked, norm_type).item<double>();
  TORCH_CHECK(!error_if_nonfinite || std::isfinite(total), "clip_grad_norm_: the total norm of "
              "order ", norm_type, " of the gradients is ", total, ", so they cannot be "
              "clipped; pass error_if_nonfinite=false to scale them by it anyway.");
  const double coefficient = max_norm / (total + 1e-6);
  if (coefficient < 1) {
    for (Tensor& g : grads) g.mul_(coefficient);
  }
  return total;
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                       double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type,
                         error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type,
                         error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  TORCH_CHECK(!parameters.empty(), "parameters_to_vector: the list of parameters is empty.");
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  return at::cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  TORCH_CHECK(vec.defined() && vec.dim() == 1, "vector_to_parameters: expected a 1-d tensor, "
              "but got ", vec.defined() ? vec.dim() : 0, " dimensions.");
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  TORCH_CHECK(vec.numel() == total, "vector_to_parameters: the vector has ", vec.numel(),
              " elements but the parameters have ", total, ".");
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    p.copy_(vec.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace utils
}  // namespace nn
}  // namespace torch
