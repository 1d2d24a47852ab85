// Conformance: the activations (leaky_relu, gelu, silu, elu, softplus,
// hardtanh) in all their forms and the backward ops autograd uses, against
// references (the backward ops also against finite differences of the
// forward ops, in float64).
#include <cmath>
#include <functional>
#include <limits>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class PointwiseActivation : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(PointwiseActivation);

const double kPi = std::acos(-1.0);

double gelu_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
}
double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double elu_ref(double x, double alpha, double scale, double input_scale) {
  return x > 0 ? scale * x : scale * alpha * std::expm1(x * input_scale);
}
double softplus_ref(double x, double beta, double threshold) {
  return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
}

void check_forms(const std::string& name, const UnaryOp& fn, const InplaceOp& inplace,
                 const OutOp& out, const std::function<double(double)>& ref, Domain domain,
                 c10::Device device) {
  check_unary(name, fn, ref, floating_dtypes(), domain, device);
  if (inplace) check_unary_inplace(name + "_", inplace, ref, floating_dtypes(), domain, device);
  check_unary_out(name, out, ref, floating_dtypes(), domain, device);
}

TEST_P(PointwiseActivation, LeakyRelu) {
  check_forms("leaky_relu", [](const at::Tensor& x) { return at::leaky_relu(x, 0.2); },
              [](at::Tensor& x) { at::leaky_relu_(x, 0.2); },
              [](const at::Tensor& x, at::Tensor& out) { at::leaky_relu_out(out, x, 0.2); },
              [](double x) { return x > 0 ? x : 0.2 * x; }, {}, device());
  // The default slope is 0.01.
  const at::Tensor x = make_tensor(Ref({2}, {-2, 3}), kFloat, device());
  EXPECT_TRUE(close(at::leaky_relu(x), Ref({2}, {-0.02, 3}), kFloat));
  EXPECT_TRUE(close(at::leaky_relu(x, 0.2), Ref({2}, {-0.4, 3}), kFloat));
}

TEST_P(PointwiseActivation, GeluBothForms) {
  check_unary("gelu", [](const at::Tensor& x) { return at::gelu(x); }, gelu_ref,
              floating_dtypes(), {-5, 5}, device());
  check_unary("gelu tanh", [](const at::Tensor& x) { return at::gelu(x, "tanh"); },
              gelu_tanh_ref, floating_dtypes(), {-5, 5}, device());
  check_unary_inplace("gelu_", [](at::Tensor& x) { at::gelu_(x, "tanh"); }, gelu_tanh_ref,
                      floating_dtypes(), {-5, 5}, device());
  check_unary_out("gelu", [](const at::Tensor& x, at::Tensor& out) { at::gelu_out(out, x); },
                  gelu_ref, floating_dtypes(), {-5, 5}, device());
  const at::Tensor x = make_tensor(Ref({1}, {1}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::gelu(x, "fast"); }),
              HasSubstr("gelu: approximate argument must be either none or tanh"));
  EXPECT_THAT(errorOf([&] { at::gelu_backward(x, x, "erf"); }),
              HasSubstr("gelu_backward: approximate argument must be either none or tanh"));
}

// Float32 GELU's loop uses a vectorizable erfc (backends/cpu/pointwise_math.h):
// check it densely, including the far negative side where 1 + erf(x) is
// tiny and only a relative error bound means anything. The input is strided,
// which keeps it on the loop: large contiguous float32 tensors go to oneDNN,
// whose tail is only absolutely accurate (4e-7), as PyTorch's is (checked in
// tests/backends/cpu/eltwise_onednn_test.cc).
TEST_P(PointwiseActivation, Float32GeluAcrossItsRange) {
  std::vector<double> xs;
  for (double x = -12; x <= 12; x += 0.00113) xs.push_back(static_cast<float>(x));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  xs.push_back(nan);
  xs.push_back(inf);
  xs.push_back(-inf);
  const Ref r({static_cast<int64_t>(xs.size())}, xs);
  Ref expected = map(r, gelu_ref);
  expected.v[expected.v.size() - 1] = nan;  // gelu(-inf) = -inf * 0, as in PyTorch
  const at::Tensor x = make_tensor(r, kFloat, device());
  const at::Tensor strided = at::stack({x, x}, 1).select(1, 0);
  ASSERT_FALSE(strided.is_contiguous());
  // Scaling x by 1/sqrt(2) in float costs up to ~2 x^2 ulp in exp(-x^2/2).
  EXPECT_TRUE(close(at::gelu(strided), expected, kFloat, Tol{1.5e-5, 1e-37}));
}

TEST_P(PointwiseActivation, SiluEluSoftplusHardtanh) {
  check_forms("silu", [](const at::Tensor& x) { return at::silu(x); },
              [](at::Tensor& x) { at::silu_(x); },
              [](const at::Tensor& x, at::Tensor& out) { at::silu_out(out, x); },
              [](double x) { return x * sigmoid_ref(x); }, {-6, 6}, device());
  check_forms("elu", [](const at::Tensor& x) { return at::elu(x, 1.5, 2, 0.5); },
              [](at::Tensor& x) { at::elu_(x, 1.5, 2, 0.5); },
              [](const at::Tensor& x, at::Tensor& out) { at::elu_out(out, x, 1.5, 2, 0.5); },
              [](double x) { return elu_ref(x, 1.5, 2, 0.5); }, {-4, 4}, device());
  check_unary("elu defaults", [](const at::Tensor& x) { return at::elu(x); },
              [](double x) { return elu_ref(x, 1, 1, 1); }, floating_dtypes(), {-4, 4},
              device());
  check_forms("softplus", [](const at::Tensor& x) { return at::softplus(x, 2, 3); }, nullptr,
              [](const at::Tensor& x, at::Tensor& out) { at::softplus_out(out, x, 2, 3); },
              [](double x) { return softplus_ref(x, 2, 3); }, {-4, 4}, device());
  check_unary("softplus defaults", [](const at::Tensor& x) { return at::softplus(x); },
              [](double x) { return softplus_ref(x, 1, 20); }, floating_dtypes(), {-30, 30},
              device());
  const Dtypes numeric = {kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};
  check_unary("hardtanh", [](const at::Tensor& x) { return at::hardtanh(x); },
              [](double x) { return std::min(std::max(x, -1.0), 1.0); }, numeric, {-3, 3},
              device());
  check_unary_inplace("hardtanh_", [](at::Tensor& x) { at::hardtanh_(x, -2, 0.5); },
                      [](double x) { return std::min(std::max(x, -2.0), 0.5); },
                      floating_dtypes(), {-3, 3}, device());
  check_unary_out("hardtanh",
                  [](const at::Tensor& x, at::Tensor& out) { at::hardtanh_out(out, x, 0, 2); },
                  [](double x) { return std::min(std::max(x, 0.0), 2.0); }, numeric, {-3, 3},
                  device());
}

TEST_P(PointwiseActivation, FloatingOnlyErrors) {
  const at::Tensor ints = make_tensor(Ref({2}, {1, -1}), kLong, device());
  EXPECT_THAT(errorOf([&] { at::leaky_relu(ints); }),
              HasSubstr("leaky_relu: the CPU kernel is not implemented for dtype Long"));
  EXPECT_THAT(errorOf([&] { at::gelu(ints); }), HasSubstr("not implemented for dtype Long"));
  EXPECT_THAT(errorOf([&] { at::silu(ints); }), HasSubstr("not implemented for dtype Long"));
  EXPECT_THAT(errorOf([&] { at::elu(ints); }), HasSubstr("not implemented for dtype Long"));
  EXPECT_THAT(errorOf([&] { at::softplus(ints); }),
              HasSubstr("not implemented for dtype Long"));
  const at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::hardtanh(flags); }),
              HasSubstr("hardtanh: bool tensors are not supported"));
}

// hardtanh's bounds on an integral input are values of its dtype, converted
// as PyTorch converts a Scalar: fractions dropped, out of range refused.
TEST_P(PointwiseActivation, HardtanhBoundsAreValuesOfAnIntegralDtype) {
  const at::Tensor bytes = make_tensor(Ref({3}, {1, 50, 200}), kByte, device());
  EXPECT_THAT(errorOf([&] { at::hardtanh(bytes, -1.5, 2); }),
              HasSubstr("hardtanh: min_val and max_val must be values of the input's dtype "
                        "Byte: Scalar::toByte: value -1.5 cannot be converted to type uint8_t "
                        "without overflow"));
  at::Tensor chars = make_tensor(Ref({2}, {-3, 7}), kChar, device());
  EXPECT_THAT(errorOf([&] { at::hardtanh_(chars, 0, 300); }),
              HasSubstr("cannot be converted to type int8_t without overflow"));
  EXPECT_TRUE(close(at::hardtanh(bytes, 1.5, 100.7), Ref({3}, {1, 50, 100}), kByte));
  EXPECT_TRUE(close(at::hardtanh(chars, -2.9, 2.9), Ref({2}, {-2, 2}), kChar));
}

// ---- backward ops --------------------------------------------------------------------

// d/dx f at x, by central differences in double.
double derivative(const std::function<double(double)>& f, double x) {
  const double h = 1e-6;
  return (f(x + h) - f(x - h)) / (2 * h);
}

// op(grad, x) equals grad * f'(x) for f given by `forward`, checked on
// layouts and broadcasts through check_binary (x from `domain`) and, in
// float64, against finite differences of Ember's own forward op.
void check_backward(const std::string& name, const BinaryOp& op,
                    const std::function<double(double)>& derivative_ref,
                    const UnaryOp& forward, Domain domain, c10::Device device) {
  auto ref = [&](double g, double x) { return g * derivative_ref(x); };
  check_binary(name, op, ref, same_pairs({kHalf, kBFloat16}), {-2, 2}, domain, device,
               same_dtype, Tol{2e-2, 2e-2});
  check_binary(name, op, ref, same_pairs({kFloat}), {-2, 2}, domain, device, same_dtype,
               Tol{2e-5, 2e-5});
  // derivative_ref may itself be a central difference, good to about 1e-9.
  check_binary(name, op, ref, same_pairs({kDouble}), {-2, 2}, domain, device, same_dtype,
               Tol{1e-8, 1e-8});
  // Finite differences of the forward op itself.
  const Ref xs = random_ref({64}, kDouble, domain, 99);
  const at::Tensor x = make_tensor(xs, kDouble, device);
  const at::Tensor ones = make_tensor(Ref({64}, std::vector<double>(64, 1.0)), kDouble, device);
  const double h = 1e-6;
  const at::Tensor step = make_tensor(Ref({}, {h}), kDouble, device);
  const Ref numeric = to_ref(at::div(at::sub(forward(at::add(x, step)), forward(at::sub(x, step))),
                                     at::mul(step, 2)));
  EXPECT_TRUE(close(op(ones, x), numeric, kDouble, Tol{1e-6, 1e-6})) << name;
}

TEST_P(PointwiseActivation, BackwardOps) {
  check_backward("sigmoid_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::sigmoid_backward(g, at::sigmoid(x));
                 },
                 [](double x) { return derivative(sigmoid_ref, x); },
                 [](const at::Tensor& x) { return at::sigmoid(x); }, {-4, 4}, device());
  check_backward("tanh_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::tanh_backward(g, at::tanh(x));
                 },
                 [](double x) { return 1 - std::tanh(x) * std::tanh(x); },
                 [](const at::Tensor& x) { return at::tanh(x); }, {-3, 3}, device());
  check_backward("gelu_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::gelu_backward(g, x);
                 },
                 [](double x) { return derivative(gelu_ref, x); },
                 [](const at::Tensor& x) { return at::gelu(x); }, {-4, 4}, device());
  check_backward("gelu_backward tanh",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::gelu_backward(g, x, "tanh");
                 },
                 [](double x) { return derivative(gelu_tanh_ref, x); },
                 [](const at::Tensor& x) { return at::gelu(x, "tanh"); }, {-4, 4}, device());
  check_backward("silu_backward",
                 [](const at::Tensor& g, const at::Tensor& x) { return at::silu_backward(g, x); },
                 [](double x) { return derivative([](double v) { return v * sigmoid_ref(v); }, x); },
                 [](const at::Tensor& x) { return at::silu(x); }, {-4, 4}, device());
  check_backward("elu_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::elu_backward(g, 1.5, 2, 0.5, false, x);
                 },
                 [](double x) {
                   return derivative([](double v) { return elu_ref(v, 1.5, 2, 0.5); }, x);
                 },
                 [](const at::Tensor& x) { return at::elu(x, 1.5, 2, 0.5); }, {0.1, 3},
                 device());
  check_backward("elu_backward negative side",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::elu_backward(g, 1.5, 2, 0.5, false, x);
                 },
                 [](double x) {
                   return derivative([](double v) { return elu_ref(v, 1.5, 2, 0.5); }, x);
                 },
                 [](const at::Tensor& x) { return at::elu(x, 1.5, 2, 0.5); }, {-3, -0.1},
                 device());
  check_backward("elu_backward from the result",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::elu_backward(g, 1.5, 2, 0.5, true, at::elu(x, 1.5, 2, 0.5));
                 },
                 [](double x) {
                   return derivative([](double v) { return elu_ref(v, 1.5, 2, 0.5); }, x);
                 },
                 [](const at::Tensor& x) { return at::elu(x, 1.5, 2, 0.5); }, {-3, -0.1},
                 device());
  check_backward("softplus_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::softplus_backward(g, x, 2, 3);
                 },
                 [](double x) {
                   return derivative([](double v) { return softplus_ref(v, 2, 3); }, x);
                 },
                 [](const at::Tensor& x) { return at::softplus(x, 2, 3); }, {-3, 1.4},
                 device());
  check_backward("leaky_relu_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::leaky_relu_backward(g, x, 0.2, false);
                 },
                 [](double x) { return x > 0 ? 1 : 0.2; },
                 [](const at::Tensor& x) { return at::leaky_relu(x, 0.2); }, {-3, 3}, device());
  check_backward("hardtanh_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::hardtanh_backward(g, x, -1, 2);
                 },
                 [](double x) { return x <= -1 || x >= 2 ? 0 : 1; },
                 [](const at::Tensor& x) { return at::hardtanh(x, -1, 2); }, {-3, 3}, device());
  check_backward("threshold_backward",
                 [](const at::Tensor& g, const at::Tensor& x) {
                   return at::threshold_backward(g, x, 0);
                 },
                 [](double x) { return x <= 0 ? 0 : 1; },
                 [](const at::Tensor& x) { return at::relu(x); }, {-3, 3}, device());
  // threshold_backward takes integer tensors too.
  const at::Tensor g = make_tensor(Ref({4}, {5, 6, 7, 8}), kLong, device());
  const at::Tensor x = make_tensor(Ref({4}, {-1, 0, 1, 2}), kLong, device());
  EXPECT_TRUE(close(at::threshold_backward(g, x, 0), Ref({4}, {0, 0, 7, 8}), kLong));
  EXPECT_TRUE(close(at::threshold_backward(g, x, 1), Ref({4}, {0, 0, 0, 8}), kLong));
}

TEST_P(PointwiseActivation, BackwardErrors) {
  const at::Tensor x = make_tensor(Ref({2}, {1, -1}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::elu_backward(x, -1, 1, 1, true, x); }),
              HasSubstr("elu_backward: In-place elu backward calculation is triggered "
                        "with a negative slope which is not supported"));
  EXPECT_THAT(errorOf([&] { at::leaky_relu_backward(x, x, -0.1, true); }),
              HasSubstr("leaky_relu_backward: In-place leakyReLu backward calculation is "
                        "triggered with a negative slope which is not supported"));
  const at::Tensor ints = make_tensor(Ref({2}, {1, -1}), kLong, device());
  EXPECT_THAT(errorOf([&] { at::sigmoid_backward(ints, ints); }),
              HasSubstr("sigmoid_backward: the CPU kernel is not implemented for dtype Long"));
  const at::Tensor three = make_tensor(Ref({3}, {1, 2, 3}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::tanh_backward(x, three); }),
              HasSubstr("tanh_backward: shapes [2] and [3] cannot be broadcast"));
}

}  // namespace
}  // namespace ember_conformance
