// backends/cuda/random_ops.cc — the random samplers (uniform_, normal_,
// random_, bernoulli_), their out= factories (rand, randn, randint,
// randperm) and dropout on the CUDA key. Each reserves its range of the
// device generator's Philox stream as the CPU plugin does and gives element
// i the CPU's words (Note [CUDA random numbers equal the CPU's] in
// kernels/random_ops.cuh): the same seed gives the CPU's numbers. The
// argument checks are the core's (aten/RandomChecks.h), shared with the CPU.
#include <numeric>
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "aten/PhiloxRNG.h"
#include "aten/RandomChecks.h"
#include "aten/Resize.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAGeneratorImpl.h"
#include "backends/cuda/CUDAIterator.h"
#include "backends/cuda/kernels/random_ops.cuh"
#include "c10/core/DeviceGuard.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

using OptGen = std::optional<at::Generator>;

// uniform_, normal_ and dropout: the floating dtypes.
void check_floating_kernel(const at::Tensor& t, const char* op) {
  const c10::ScalarType dt = t.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(dt), op,
                              ": the CUDA kernel is not implemented for dtype ", dt,
                              "; it supports Float, Double, Half and BFloat16. Convert the "
                              "tensor with .to(dtype) first.");
}

// Note [Random numbers of the other dtypes on CUDA]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The random kernels are built for the core five dtypes. Every op takes the
// same stream words per element for Half and BFloat16 as for Float, and
// for the small integers as for Long, and the CPU computes their values in
// float (Half, BFloat16) or int64 and rounds or narrows them once
// (docs/ops/random.md). So a result of such a dtype is drawn as its carrier
// (Float or Long) into a temporary and converted by copy_: the CPU's
// numbers and the same stream range. uniform_ then clamps a Half/BFloat16
// sample that rounded up to `to` as the CPU does (uniform_). The carrier
// is kernel_carrier (CUDAIterator.h).

// Runs the kernel for `a` into self's elements in row-major order (through
// a contiguous temporary when self is not contiguous or not of a kernel
// dtype: Note [Random numbers of the other dtypes on CUDA]), reserving the
// blocks it takes from `generator` (self's device's default when absent).
void sample_into(const at::Tensor& self, kernels::RandomArgs a, const OptGen& generator,
                 const char* op) {
  a.n = self.numel();
  if (a.n == 0) return;
  const c10::ScalarType dtype = kernel_carrier(self.scalar_type());
  a.dtype = kernel_dtype(dtype, op);
  const c10::Device device = self.device();
  at::Tensor target = self.is_contiguous() && dtype == self.scalar_type()
                          ? self
                          : empty_cuda(self.sizes(), dtype, device, op);
  const uint64_t words = 4 * static_cast<uint64_t>(kernels::random::blocks_for(a));
  const at::PhiloxCpuState s = reserve_philox(generator, device, words, op);
  a.seed = s.seed;
  a.offset = s.offset;
  a.out = target.data_ptr();
  {
    c10::DeviceGuard guard(device);
    CUDAIterator::check_launch(op, kernels::launch_random(a, current_stream(device)));
  }
  if (!target.is_same(self)) self.copy_(target);
}

// ---- samplers --------------------------------------------------------------------------

at::Tensor& uniform_(at::Tensor& self, double from, double to, OptGen generator) {
  const char* op = "uniform_";
  check_floating_kernel(self, op);
  at::native::check_uniform_bounds(self.scalar_type(), from, to);
  sample_into(self, kernels::random::uniform_args(from, to, self.scalar_type() == c10::kDouble),
              generator, op);
  if (c10::isReducedFloatingType(self.scalar_type()) && from != to && self.numel() != 0) {
    self.clamp_max_(at::native::largest_below(self.scalar_type(), to));
  }
  return self;
}

at::Tensor& normal_(at::Tensor& self, double mean, double std, OptGen generator) {
  const char* op = "normal_";
  check_floating_kernel(self, op);
  at::native::check_normal_std(std);
  sample_into(self, kernels::random::normal_args(mean, std), generator, op);
  return self;
}

at::Tensor& random_from(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                        OptGen generator) {
  const char* op = "random_";
  const at::native::RandomRange r = at::native::random_range(self.scalar_type(), from, to);
  sample_into(self, kernels::random::random_args(r.from, r.range), generator, op);
  return self;
}

at::Tensor& random_to(at::Tensor& self, int64_t to, OptGen generator) {
  return random_from(self, 0, to, std::move(generator));
}

at::Tensor& random_(at::Tensor& self, OptGen generator) {
  return random_from(self, 0, std::nullopt, std::move(generator));
}

at::Tensor& bernoulli_float_(at::Tensor& self, double p, OptGen generator) {
  const char* op = "bernoulli_";
  at::native::check_bernoulli_p(p);
  sample_into(self, kernels::random::bernoulli_args(p), generator, op);
  return self;
}

at::Tensor& bernoulli_tensor_(at::Tensor& self, const at::Tensor& p, OptGen generator) {
  const char* op = "bernoulli_";
  TORCH_CHECK(p.device() == self.device(), op, ": p is on ", p.device(), " but self is on ",
              self.device(), ". Move p to ", self.device(), ".");
  at::native::check_bernoulli_p_tensor(self, p);
  if (self.numel() == 0) return self;
  const at::Tensor probs = p.expand(self.sizes()).to(c10::kDouble).contiguous();
  // Every probability in [0, 1] (NaN is not): one reduction and a 1-byte
  // read; the first bad one is looked up on the CPU only to report it.
  const at::Tensor bad = at::logical_not(at::logical_and(at::ge(probs, 0.0), at::le(probs, 1.0)));
  if (at::any(bad).item<bool>()) {
    const at::Tensor host_bad = bad.reshape({-1}).to(c10::kCPU);
    const at::Tensor host_probs = probs.reshape({-1}).to(c10::kCPU);
    const bool* flags = host_bad.data_ptr<bool>();
    for (int64_t i = 0; i < host_bad.numel(); ++i) {
      if (flags[i]) {
        at::native::throw_bernoulli_probability(host_probs.data_ptr<double>()[i], i,
                                                self.sizes());
      }
    }
  }
  sample_into(self, kernels::random::bernoulli_tensor_args(probs.data_ptr<double>()), generator,
              op);
  return self;
}

// ---- out= factories ---------------------------------------------------------------------

at::Tensor& rand_generator_out(c10::IntArrayRef size, OptGen generator, at::Tensor& out) {
  at::native::resize_output(out, size, "rand");
  return uniform_(out, 0.0, 1.0, std::move(generator));
}
at::Tensor& rand_out(c10::IntArrayRef size, at::Tensor& out) {
  return rand_generator_out(size, std::nullopt, out);
}
at::Tensor& randn_generator_out(c10::IntArrayRef size, OptGen generator, at::Tensor& out) {
  at::native::resize_output(out, size, "randn");
  return normal_(out, 0.0, 1.0, std::move(generator));
}
at::Tensor& randn_out(c10::IntArrayRef size, at::Tensor& out) {
  return randn_generator_out(size, std::nullopt, out);
}
at::Tensor& randint_low_generator_out(int64_t low, int64_t high, c10::IntArrayRef size,
                                      OptGen generator, at::Tensor& out) {
  at::native::check_randint_bounds(low, high);
  at::native::resize_output(out, size, "randint");
  return random_from(out, low, high, std::move(generator));
}
at::Tensor& randint_low_out(int64_t low, int64_t high, c10::IntArrayRef size, at::Tensor& out) {
  return randint_low_generator_out(low, high, size, std::nullopt, out);
}
at::Tensor& randint_generator_out(int64_t high, c10::IntArrayRef size, OptGen generator,
                                  at::Tensor& out) {
  return randint_low_generator_out(0, high, size, std::move(generator), out);
}
at::Tensor& randint_out(int64_t high, c10::IntArrayRef size, at::Tensor& out) {
  return randint_low_generator_out(0, high, size, std::nullopt, out);
}

// Fisher-Yates on the host (step k swaps position n-1-k with a position
// drawn from words 2k and 2k+1, as the CPU kernel), from the device's
// stream, then one copy to the device.
at::Tensor& randperm_out(int64_t n, OptGen generator, at::Tensor& out) {
  const char* op = "randperm";
  at::native::check_randperm(n, out.scalar_type());
  // Made on the host as Long; copy_ converts to any dtype as the CPU does.
  kernel_dtype(out.scalar_type(), op, KernelDtypes::kAll);
  at::native::resize_output(out, {n}, op);
  if (n == 0) return out;
  const at::PhiloxCpuState s =
      reserve_philox(generator, out.device(), 2 * static_cast<uint64_t>(n - 1), op);
  at::Tensor perm = at::empty({n}, at::TensorOptions().dtype(c10::kLong));
  int64_t* p = perm.data_ptr<int64_t>();
  std::iota(p, p + n, int64_t{0});
  for (int64_t k = 0; k < n - 1; ++k) {
    const at::PhiloxBlock w = at::philox_stream_block(s.seed, s.offset, static_cast<uint64_t>(k / 2));
    const uint64_t x = (static_cast<uint64_t>(w[2 * (k % 2)]) << 32) | w[2 * (k % 2) + 1];
    const int64_t i = n - 1 - k;
    const auto j = static_cast<int64_t>(
        (static_cast<unsigned __int128>(x) * (static_cast<uint64_t>(i) + 1)) >> 64);
    std::swap(p[i], p[j]);
  }
  out.copy_(perm);
  return out;
}

// ---- dropout -----------------------------------------------------------------------------

std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p,
                                                  std::optional<bool> train) {
  const char* op = "native_dropout";
  at::native::check_dropout(input, p);
  check_floating_kernel(input, op);
  const c10::Device device = input.device();
  at::Tensor output = empty_cuda(input.sizes(), input.scalar_type(), device, op);
  at::Tensor mask = empty_cuda(input.sizes(), c10::kBool, device, op);
  const int64_t n = input.numel();
  if (!train.value_or(true)) {
    output.copy_(input);
    if (n > 0) mask.fill_(true);
    return {output, mask};
  }
  if (n == 0) return {output, mask};
  // Half and BFloat16 through their carrier, Float (Note [Random numbers of
  // the other dtypes on CUDA]): the kernel reads the input in it.
  const at::Tensor x = input.to(kernel_carrier(input.scalar_type())).contiguous();
  sample_into(output, kernels::random::dropout_args(p, x.data_ptr(), mask.data_ptr<bool>()),
              std::nullopt, op);
  return {output, mask};
}

// grad_output * mask * scale, in grad_output's dtype (the CPU's order: the
// product with the mask is exact). Half and BFloat16 in float with a float
// scale, rounded once, as the CPU (a Scalar beside a Half tensor would be
// rounded to Half first).
at::Tensor native_dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask,
                                   double scale) {
  at::native::check_dropout_backward(grad_output, mask);
  if (c10::isReducedFloatingType(grad_output.scalar_type())) {
    return at::mul(at::mul(grad_output.to(c10::kFloat), mask), scale)
        .to(grad_output.scalar_type());
  }
  return at::mul(at::mul(grad_output, mask), scale);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("uniform_", TORCH_FN(uniform_));
  m.impl("normal_", TORCH_FN(normal_));
  m.impl("random_.from", TORCH_FN(random_from));
  m.impl("random_.to", TORCH_FN(random_to));
  m.impl("random_", TORCH_FN(random_));
  m.impl("bernoulli_.float", TORCH_FN(bernoulli_float_));
  m.impl("bernoulli_.Tensor", TORCH_FN(bernoulli_tensor_));
  m.impl("rand.out", TORCH_FN(rand_out));
  m.impl("rand.generator_out", TORCH_FN(rand_generator_out));
  m.impl("randn.out", TORCH_FN(randn_out));
  m.impl("randn.generator_out", TORCH_FN(randn_generator_out));
  m.impl("randint.out", TORCH_FN(randint_out));
  m.impl("randint.generator_out", TORCH_FN(randint_generator_out));
  m.impl("randint.low_out", TORCH_FN(randint_low_out));
  m.impl("randint.low_generator_out", TORCH_FN(randint_low_generator_out));
  m.impl("randperm.generator_out", TORCH_FN(randperm_out));
  m.impl("native_dropout", TORCH_FN(native_dropout));
  m.impl("native_dropout_backward", TORCH_FN(native_dropout_backward));
}

}  // namespace cuda
}  // namespace ember
