// Random ops written in terms of others: the factories (an empty tensor,
// then an in-place sampler), the functional samplers, and dropout. One
// composite kernel for every backend; the backend supplies uniform_,
// normal_, random_, bernoulli_, randperm.out and native_dropout.
#include <tuple>

#include "aten/Functions.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

using OptGen = std::optional<Generator>;

TensorOptions options_of(std::optional<ScalarType> dtype, std::optional<Layout> layout,
                         std::optional<Device> device, std::optional<bool> pin_memory) {
  return TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(
      pin_memory);
}

// ---- rand / randn ---------------------------------------------------------------

Tensor rand_generator(IntArrayRef size, OptGen generator, std::optional<ScalarType> dtype,
                      std::optional<Layout> layout, std::optional<Device> device,
                      std::optional<bool> pin_memory) {
  return at::empty(size, options_of(dtype, layout, device, pin_memory))
      .uniform_(0, 1, std::move(generator));
}

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device,
            std::optional<bool> pin_memory) {
  return rand_generator(size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor randn_generator(IntArrayRef size, OptGen generator,
                       std::optional<ScalarType> dtype, std::optional<Layout> layout,
                       std::optional<Device> device, std::optional<bool> pin_memory) {
  return at::empty(size, options_of(dtype, layout, device, pin_memory))
      .normal_(0, 1, std::move(generator));
}

Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device,
             std::optional<bool> pin_memory) {
  return randn_generator(size, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device,
                 std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return at::empty_like(self, dtype, layout, device, pin_memory, memory_format)
      .uniform_(0, 1);
}

Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype,
                  std::optional<Layout> layout, std::optional<Device> device,
                  std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return at::empty_like(self, dtype, layout, device, pin_memory, memory_format)
      .normal_(0, 1);
}

// ---- randint / randperm ------------------------------------------------------------

void check_low_high(int64_t low, int64_t high, const char* op) {
  TORCH_CHECK(low < high, op, ": expects low < high, but got low=", low,
              " and high=", high, ". Pass a high greater than low (high is "
              "excluded).");
}

Tensor randint_low_generator(int64_t low, int64_t high, IntArrayRef size,
                             OptGen generator, std::optional<ScalarType> dtype,
                             std::optional<Layout> layout, std::optional<Device> device,
                             std::optional<bool> pin_memory) {
  check_low_high(low, high, "randint");
  return at::empty(size, options_of(dtype.value_or(ScalarType::Long), layout, device,
                                    pin_memory))
      .random_(low, high, std::move(generator));
}

Tensor randint_low(int64_t low, int64_t high, IntArrayRef size,
                   std::optional<ScalarType> dtype, std::optional<Layout> layout,
                   std::optional<Device> device, std::optional<bool> pin_memory) {
  return randint_low_generator(low, high, size, std::nullopt, dtype, layout, device,
                               pin_memory);
}

Tensor randint_generator(int64_t high, IntArrayRef size, OptGen generator,
                         std::optional<ScalarType> dtype, std::optional<Layout> layout,
                         std::optional<Device> device, std::optional<bool> pin_memory) {
  return randint_low_generator(0, high, size, std::move(generator), dtype, layout,
                               device, pin_memory);
}

Tensor randint(int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory) {
  return randint_low_generator(0, high, size, std::nullopt, dtype, layout, device,
                               pin_memory);
}

Tensor randint_like_low_dtype(const Tensor& self, int64_t low, int64_t high,
                              std::optional<ScalarType> dtype,
                              std::optional<Layout> layout,
                              std::optional<Device> device,
                              std::optional<bool> pin_memory,
                              std::optional<MemoryFormat> memory_format) {
  check_low_high(low, high, "randint_like");
  return at::empty_like(self, dtype, layout, device, pin_memory, memory_format)
      .random_(low, high);
}

Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype,
                    std::optional<Layout> layout, std::optional<Device> device,
                    std::optional<bool> pin_memory,
                    std::optional<MemoryFormat> memory_format) {
  return randint_like_low_dtype(self, 0, high, dtype, layout, device, pin_memory,
                                memory_format);
}

Tensor randperm_generator(int64_t n, OptGen generator, std::optional<ScalarType> dtype,
                          std::optional<Layout> layout, std::optional<Device> device,
                          std::optional<bool> pin_memory) {
  TORCH_CHECK(n >= 0, "randperm: n must be non-negative, but got n=", n, ".");
  Tensor out = at::empty({n}, options_of(dtype.value_or(ScalarType::Long), layout,
                                         device, pin_memory));
  return at::randperm_out(out, n, std::move(generator));
}

Tensor randperm(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  return randperm_generator(n, std::nullopt, dtype, layout, device, pin_memory);
}

Tensor& randperm_out(int64_t n, Tensor& out) {
  return at::randperm_out(out, n, std::nullopt);
}

// ---- functional samplers ------------------------------------------------------------

Tensor bernoulli(const Tensor& self, OptGen generator) {
  return at::empty_like(self).bernoulli_(self, std::move(generator));
}

Tensor bernoulli_p(const Tensor& self, double p, OptGen generator) {
  return at::empty_like(self).bernoulli_(p, std::move(generator));
}

void check_std(double std, const char* op) {
  TORCH_CHECK(std >= 0.0, op, ": expects std >= 0.0, but found std ", std,
              ". Pass a non-negative standard deviation.");
}

void check_std(const Tensor& std, const char* op) {
  if (std.numel() == 0) return;
  const double lowest = at::amin(std).item<double>();
  TORCH_CHECK(lowest >= 0.0, op, ": expects all elements of std >= 0.0, but found "
              "std element ", lowest, ". Pass non-negative standard deviations.");
}

Tensor normal_tensor_float(const Tensor& mean, double std, OptGen generator) {
  check_std(std, "normal");
  Tensor out = at::empty_like(mean).normal_(0, std, std::move(generator));
  out.add_(mean);
  return out;
}

Tensor normal_float_tensor(double mean, const Tensor& std, OptGen generator) {
  check_std(std, "normal");
  Tensor out = at::empty_like(std).normal_(0, 1, std::move(generator));
  out.mul_(std);
  return at::add(out, mean);
}

Tensor normal_tensor_tensor(const Tensor& mean, const Tensor& std, OptGen generator) {
  check_std(std, "normal");
  // The broadcast shape of mean and std; PyTorch's result has mean's dtype.
  const IntArrayRef a = mean.sizes();
  const IntArrayRef b = std.sizes();
  std::vector<int64_t> shape(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    TORCH_CHECK(x == y || x == 1 || y == 1, "normal: mean of shape ", a,
                " and std of shape ", b, " cannot be broadcast together; the "
                "trailing dimensions must match or be 1.");
    shape[shape.size() - 1 - i] = x == 1 ? y : x;
  }
  Tensor out = at::empty(shape, mean.options()).normal_(0, 1, std::move(generator));
  out.mul_(std);
  out.add_(mean);
  return out;
}

Tensor normal_float_float(double mean, double std, IntArrayRef size, OptGen generator,
                          std::optional<ScalarType> dtype, std::optional<Layout> layout,
                          std::optional<Device> device, std::optional<bool> pin_memory) {
  check_std(std, "normal");
  return at::empty(size, options_of(dtype, layout, device, pin_memory))
      .normal_(mean, std, std::move(generator));
}

// ---- dropout ----------------------------------------------------------------------------

void check_dropout_p(double p, const char* op) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, op, ": dropout probability has to be between "
              "0 and 1, but got ", p, ".");
}

// As PyTorch: the input itself when nothing is dropped, zeros (through a
// multiplication, so NaN stays NaN) when everything is.
Tensor dropout(const Tensor& input, double p, bool train) {
  check_dropout_p(p, "dropout");
  if (p == 0.0 || !train || input.numel() == 0) return input;
  if (p == 1.0) return input.mul(at::zeros({}, input.options()));
  return std::get<0>(at::native_dropout(input, p, train));
}

Tensor& dropout_(Tensor& self, double p, bool train) {
  check_dropout_p(p, "dropout_");
  if (p == 0.0 || !train || self.numel() == 0) return self;
  if (p == 1.0) return self.mul_(at::zeros({}, self.options()));
  return self.copy_(std::get<0>(at::native_dropout(self, p, train)));
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("rand", TORCH_FN(at::native::rand));
  m.impl("rand.generator", TORCH_FN(at::native::rand_generator));
  m.impl("rand_like", TORCH_FN(at::native::rand_like));
  m.impl("randn", TORCH_FN(at::native::randn));
  m.impl("randn.generator", TORCH_FN(at::native::randn_generator));
  m.impl("randn_like", TORCH_FN(at::native::randn_like));
  m.impl("randint", TORCH_FN(at::native::randint));
  m.impl("randint.generator", TORCH_FN(at::native::randint_generator));
  m.impl("randint.low", TORCH_FN(at::native::randint_low));
  m.impl("randint.low_generator", TORCH_FN(at::native::randint_low_generator));
  m.impl("randint_like", TORCH_FN(at::native::randint_like));
  m.impl("randint_like.low_dtype", TORCH_FN(at::native::randint_like_low_dtype));
  m.impl("randperm", TORCH_FN(at::native::randperm));
  m.impl("randperm.generator", TORCH_FN(at::native::randperm_generator));
  m.impl("randperm.out", TORCH_FN(at::native::randperm_out));
  m.impl("bernoulli", TORCH_FN(at::native::bernoulli));
  m.impl("bernoulli.p", TORCH_FN(at::native::bernoulli_p));
  m.impl("normal.Tensor_float", TORCH_FN(at::native::normal_tensor_float));
  m.impl("normal.float_Tensor", TORCH_FN(at::native::normal_float_tensor));
  m.impl("normal.Tensor_Tensor", TORCH_FN(at::native::normal_tensor_tensor));
  m.impl("normal.float_float", TORCH_FN(at::native::normal_float_float));
  m.impl("dropout", TORCH_FN(at::native::dropout));
  m.impl("dropout_", TORCH_FN(at::native::dropout_));
}
