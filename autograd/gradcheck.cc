#include "autograd/gradcheck.h"

#include <cmath>
#include <random>
#include <sstream>

#include "aten/Functions.h"
#include "autograd/autograd.h"
#include "autograd/grad_mode.h"

namespace torch {
namespace autograd {
namespace {

// The address of element `k` (row-major order) of a CPU double tensor.
double* element(const at::Tensor& t, int64_t k) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (k % t.size(d)) * t.stride(d);
    k /= t.size(d);
  }
  return static_cast<double*>(t.data_ptr()) + offset;
}

// Every element of a tensor, as doubles (row-major).
std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor d = t;
  if (t.scalar_type() != at::kDouble) {
    d = at::empty(t.sizes(), t.options().dtype(at::kDouble));
    d.copy_(t);
  }
  std::vector<double> out(static_cast<size_t>(d.numel()));
  for (int64_t k = 0; k < d.numel(); ++k) out[static_cast<size_t>(k)] = *element(d, k);
  return out;
}

variable_list differentiable_outputs(const variable_list& outputs) {
  variable_list out;
  for (const auto& o : outputs) {
    if (o.defined() && o.requires_grad()) out.push_back(o);
  }
  return out;
}

std::string matrix(const std::vector<std::vector<double>>& m) {
  std::ostringstream s;
  s.precision(6);
  for (const auto& row : m) {
    s << "\n  [";
    for (size_t j = 0; j < row.size(); ++j) s << (j ? ", " : "") << row[j];
    s << "]";
  }
  return s.str();
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs,
               const GradcheckOptions& options) {
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    TORCH_CHECK(inputs[i].scalar_type() == at::kDouble &&
                    inputs[i].device().type() == c10::DeviceType::CPU,
                "gradcheck: input ", i, " requires grad but is ", inputs[i].scalar_type(),
                " on ", inputs[i].device(), "; use float64 CPU tensors (finite differences "
                "in lower precision are not reliable).");
    diff.push_back(i);
  }
  TORCH_CHECK(!diff.empty(), "gradcheck: no input requires grad; call requires_grad_() on "
              "the inputs to check.");
  // The outputs that require grad, by position (under NoGradGuard none
  // does, so the positions pick them out again).
  std::vector<size_t> out_idx;
  {
    const variable_list all = fn(inputs);
    for (size_t j = 0; j < all.size(); ++j) {
      if (all[j].defined() && all[j].requires_grad()) out_idx.push_back(j);
    }
  }
  TORCH_CHECK(!out_idx.empty(), "gradcheck: the function returned no output that requires "
              "grad.");
  const variable_list outputs = differentiable_outputs(fn(inputs));

  for (size_t j = 0; j < outputs.size(); ++j) {
    const int64_t n_out = outputs[j].numel();
    for (size_t ii : diff) {
      const at::Tensor& x = inputs[ii];
      const int64_t n_in = x.numel();
      // numerical[k][m]: d output[m] / d x[k]
      std::vector<std::vector<double>> numerical(static_cast<size_t>(n_in));
      {
        at::NoGradGuard no_grad;
        for (int64_t k = 0; k < n_in; ++k) {
          double* p = element(x, k);
          const double orig = *p;
          *p = orig + options.eps;
          const std::vector<double> plus = values_of(fn(inputs)[out_idx[j]]);
          *p = orig - options.eps;
          const std::vector<double> minus = values_of(fn(inputs)[out_idx[j]]);
          *p = orig;
          auto& row = numerical[static_cast<size_t>(k)];
          row.resize(static_cast<size_t>(n_out));
          for (int64_t m = 0; m < n_out; ++m) {
            row[static_cast<size_t>(m)] =
                (plus[static_cast<size_t>(m)] - minus[static_cast<size_t>(m)]) / (2 * options.eps);
          }
        }
      }
      // analytical: one backward per output element.
      std::vector<std::vector<double>> analytical(static_cast<size_t>(n_in),
                                                  std::vector<double>(static_cast<size_t>(n_out)));
      for (int64_t m = 0; m < n_out; ++m) {
        const variable_list outs = differentiable_outputs(fn(inputs));
        at::Tensor unit = at::zeros_like(outs[j]);
        {
          at::NoGradGuard no_grad;
          at::Tensor flat = unit.view({-1});
          flat.select(0, m).fill_(1);
        }
        const variable_list g = grad({outs[j]}, {x}, {unit}, false, false, /*allow_unused=*/true);
        const std::vector<double> gv =
            g[0].defined() ? values_of(g[0]) : std::vector<double>(static_cast<size_t>(n_in), 0.0);
        for (int64_t k = 0; k < n_in; ++k) {
          analytical[static_cast<size_t>(k)][static_cast<size_t>(m)] = gv[static_cast<size_t>(k)];
        }
      }
      for (int64_t k = 0; k < n_in; ++k) {
        for (int64_t m = 0; m < n_out; ++m) {
          const double a = analytical[static_cast<size_t>(k)][static_cast<size_t>(m)];
          const double n = numerical[static_cast<size_t>(k)][static_cast<size_t>(m)];
          if (std::fabs(a - n) <= options.atol + options.rtol * std::fabs(n)) continue;
          if (!options.raise_exception) return false;
          C10_THROW_ERROR(Error, "Jacobian mismatch for output ", j, " with respect to input ",
                          ii, " (element ", k, " of the input, ", m, " of the output: "
                          "analytical ", a, ", numerical ", n, "),\nnumerical:",
                          matrix(numerical), "\nanalytical:", matrix(analytical));
        }
      }
    }
  }
  return true;
}

bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs,
                   const variable_list& grad_outputs, const GradcheckOptions& options) {
  const variable_list outputs = differentiable_outputs(fn(inputs));
  variable_list gos = grad_outputs;
  if (gos.empty()) {
    std::mt19937_64 gen(0);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (const auto& o : outputs) {
      at::Tensor g = at::empty(o.sizes(), o.options().dtype(at::kDouble));
      for (int64_t k = 0; k < g.numel(); ++k) *element(g, k) = dist(gen);
      gos.push_back(g.requires_grad_());
    }
  }
  TORCH_CHECK(gos.size() == outputs.size(), "gradgradcheck: got ", gos.size(),
              " grad_outputs for ", outputs.size(), " differentiable outputs.");
  const size_t n_in = inputs.size();
  variable_list all = inputs;
  all.insert(all.end(), gos.begin(), gos.end());
  GradcheckFn first_derivative = [&fn, n_in](const variable_list& args) {
    // Gradients need grad mode, also while gradcheck evaluates this
    // function for finite differences.
    at::AutoGradMode enable(true);
    const variable_list in(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n_in));
    const variable_list go(args.begin() + static_cast<std::ptrdiff_t>(n_in), args.end());
    const variable_list outs = differentiable_outputs(fn(in));
    variable_list wrt;
    for (const auto& x : in) {
      if (x.defined() && x.requires_grad()) wrt.push_back(x);
    }
    variable_list g = grad(outs, wrt, go, true, /*create_graph=*/true, /*allow_unused=*/true);
    variable_list result;
    for (auto& t : g) {
      if (t.defined() && t.requires_grad()) result.push_back(t);
    }
    return result;
  };
  return gradcheck(first_derivative, all, options);
}

}  // namespace autograd
}  // namespace torch
