// tests/ops: the op-conformance suite. Every op is checked against a plain
// reference written in the test, on the device under test, for contiguous,
// transposed, sliced, offset, expanded, 0-dim and zero-size inputs and across
// dtypes. The suite is written once: a backend runs it by being in
// devices_under_test() (see EMBER_CONFORMANCE_DEVICES below).
//
//   class Pointwise : public ember_conformance::OpTest {};
//   EMBER_INSTANTIATE_CONFORMANCE(Pointwise);
//
//   TEST_P(Pointwise, Sin) {
//     check_unary("sin", [](const at::Tensor& x) { return at::sin(x); },
//                 [](double x) { return std::sin(x); },
//                 {kFloat, kDouble, kHalf, kBFloat16}, {-4, 4});
//   }
//
// References are host arrays of doubles (Ref). Inputs are drawn from a
// fixed-seed generator and rounded to the dtype under test before the
// reference sees them, so the reference computes on exactly the values the
// op gets. Reading results back copies to the CPU through copy_ when the
// device is not the CPU, and then reads elements through their strides.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "tests/support/error_of.h"

namespace ember_conformance {

using c10::ScalarType;
using ember_test::errorOf;
using ::testing::HasSubstr;

inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kByte = ScalarType::Byte;
inline constexpr ScalarType kChar = ScalarType::Char;
inline constexpr ScalarType kShort = ScalarType::Short;
inline constexpr ScalarType kInt = ScalarType::Int;
inline constexpr ScalarType kLong = ScalarType::Long;
inline constexpr ScalarType kHalf = ScalarType::Half;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
inline constexpr ScalarType kFloat = ScalarType::Float;
inline constexpr ScalarType kDouble = ScalarType::Double;

using Dtypes = std::vector<ScalarType>;
// Every dtype; floating ones; integral ones without and with Bool.
const Dtypes& all_dtypes();
const Dtypes& floating_dtypes();
const Dtypes& integral_dtypes();
const Dtypes& integral_and_bool_dtypes();

// ---- the device under test --------------------------------------------------

// The devices the suite runs on: the CPU, plus each device named in the
// comma-separated environment variable EMBER_CONFORMANCE_DEVICES (for
// example "cuda:0"), for a backend whose plugin is present.
std::vector<c10::Device> devices_under_test();

// Why `device` cannot be tested in this process ("" when it can): its
// backend is asked for a tensor once, and what it throws is the reason (no
// plugin, no CUDA device, ...). The CPU always can.
std::string device_unusable(c10::Device device);

// The fixture: GetParam() is the device under test. Every test skips, with
// the reason, on a device that cannot be tested here (device_unusable).
class OpTest : public ::testing::TestWithParam<c10::Device> {
 protected:
  void SetUp() override {
    const std::string why = device_unusable(device());
    if (!why.empty()) GTEST_SKIP() << device() << " cannot be tested here: " << why;
  }
  c10::Device device() const { return GetParam(); }
  at::TensorOptions options(ScalarType dtype) const {
    return at::TensorOptions().dtype(dtype).device(device());
  }
};

std::string device_test_name(const ::testing::TestParamInfo<c10::Device>& info);

#define EMBER_INSTANTIATE_CONFORMANCE(Suite)                                    \
  INSTANTIATE_TEST_SUITE_P(                                                     \
      Devices, Suite,                                                           \
      ::testing::ValuesIn(::ember_conformance::devices_under_test()),           \
      ::ember_conformance::device_test_name)

// ---- host references ----------------------------------------------------------

// A row-major array of doubles with a shape: the reference side of a check.
struct Ref {
  std::vector<int64_t> shape;
  std::vector<double> v;

  Ref() = default;
  Ref(std::vector<int64_t> s, std::vector<double> values);
  int64_t numel() const { return static_cast<int64_t>(v.size()); }
  int64_t dim() const { return static_cast<int64_t>(shape.size()); }
  // The element at a multi-index (one entry per dim).
  double at(const std::vector<int64_t>& index) const;
  double& at(const std::vector<int64_t>& index);
};

// numel of a shape.
int64_t numel_of(const std::vector<int64_t>& shape);
// The row-major multi-index of linear position i.
std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape);
// PyTorch's broadcast of two shapes; fails the test (and returns {}) if they
// do not broadcast.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b);
// `r` broadcast to `shape` (which it must broadcast to).
Ref broadcast_to(const Ref& r, const std::vector<int64_t>& shape);

// `v` as the dtype holds it: integers truncate toward zero and wrap, bool is
// v != 0, Half/BFloat16/Float round to nearest even.
double as_dtype(double v, ScalarType t);
// Every element of r as the dtype holds it.
Ref as_dtype(const Ref& r, ScalarType t);

// Elementwise maps of references (b broadcast against a for zip).
Ref map(const Ref& a, const std::function<double(double)>& f);
Ref zip(const Ref& a, const Ref& b, const std::function<double(double, double)>& f);

// PyTorch's result type of an op on tensors a and b (dimensioned tensors
// decide within a category; a 0-dim tensor counts only when its category —
// bool < integral < floating — is higher). Written here from PyTorch's
// documented rules, independently of the implementation under test.
ScalarType result_type(ScalarType a, int64_t a_dim, ScalarType b, int64_t b_dim);

// ---- tensors ----------------------------------------------------------------------

// A tensor on `device` holding r's values as `dtype` (contiguous).
at::Tensor make_tensor(const Ref& r, ScalarType dtype, c10::Device device);
// A tensor's values, on the host: shape and elements read through its
// strides (copied to the CPU first when it lives elsewhere).
Ref to_ref(const at::Tensor& t);

// The value range inputs are drawn from; integral dtypes draw integers in
// it, Bool draws 0 and 1.
struct Domain {
  double lo = -3;
  double hi = 3;
};

// Deterministic random values in `domain`, as `dtype` holds them.
Ref random_ref(const std::vector<int64_t>& shape, ScalarType dtype, Domain domain,
               uint64_t seed);

// One input of a check: a tensor with some memory layout and the values it
// holds.
struct Case {
  std::string name;  // e.g. "[3, 4] transposed"
  at::Tensor tensor;
  Ref ref;
};

// The shapes every unary check covers: 0-dim, zero-size, 1-d, 2-d and 3-d.
const std::vector<std::vector<int64_t>>& test_shapes();

// The inputs of one shape in every layout the shape allows: contiguous;
// transposed (column-major strides, >= 2 dims); sliced (every other element
// of a larger buffer along the last dim, with a storage offset); expanded
// (dim 0 broadcast from size 1 with stride 0, >= 1 dims, dim 0 > 1).
std::vector<Case> layouts(const std::vector<int64_t>& shape, ScalarType dtype,
                          c10::Device device, Domain domain, uint64_t seed);

// ---- comparison ---------------------------------------------------------------

struct Tol {
  double rtol;
  double atol;
};
// Tolerances that fit one rounding of the result in `dtype` (0 for integral
// dtypes and Bool: exact).
Tol default_tol(ScalarType dtype);

// actual has r's shape, `dtype`, and every element within atol + rtol *
// |expected| (NaN matches NaN, infinities must match exactly). The failure
// message lists the first mismatches with their indices.
::testing::AssertionResult close(const at::Tensor& actual, const Ref& expected,
                                 ScalarType dtype, Tol tol);
inline ::testing::AssertionResult close(const at::Tensor& actual,
                                        const Ref& expected, ScalarType dtype) {
  return close(actual, expected, dtype, default_tol(dtype));
}

// ---- checks that cover shapes, layouts and dtypes in one call --------------------

using UnaryOp = std::function<at::Tensor(const at::Tensor&)>;
using BinaryOp = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

// The dtype of an op's result, given its input's (or promoted inputs')
// dtype. same_dtype keeps it; to_float gives Float for integral and Bool
// inputs, as exp/sin/… do; to_bool gives Bool, as comparisons do.
using ResultDtype = std::function<ScalarType(ScalarType)>;
ScalarType same_dtype(ScalarType t);
ScalarType to_float(ScalarType t);
ScalarType to_bool(ScalarType t);

// For every dtype in `dtypes`, every shape of test_shapes() and every
// layout: op(x) equals ref(x) elementwise, rounded to result(dtype), within
// tol (default_tol of the result dtype when tol is not given), and x is left
// unchanged.
void check_unary(const std::string& name, const UnaryOp& op,
                 const std::function<double(double)>& ref,
                 const Dtypes& dtypes, Domain domain, c10::Device device,
                 const ResultDtype& result = same_dtype,
                 std::optional<Tol> tol = std::nullopt);

// The shape pairs every binary check covers: equal shapes, broadcasting
// both ways, 0-dim with n-d, zero-size, and 3-d against 2-d.
const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>&
binary_shape_pairs();

// For every dtype pair (a's, b's) in `dtype_pairs`, every shape pair and
// every layout of each side: op(a, b) equals ref(a, b) elementwise with b
// broadcast against a, rounded to result(result_type(a, b)).
void check_binary(const std::string& name, const BinaryOp& op,
                  const std::function<double(double, double)>& ref,
                  const std::vector<std::pair<ScalarType, ScalarType>>& dtype_pairs,
                  Domain a_domain, Domain b_domain, c10::Device device,
                  const ResultDtype& result = same_dtype,
                  std::optional<Tol> tol = std::nullopt);

// (t, t) for each t: the same-dtype pairs of a dtype list.
std::vector<std::pair<ScalarType, ScalarType>> same_pairs(const Dtypes& dtypes);
// A set of mixed pairs that exercise promotion: (Int, Float), (Long, Double),
// (Bool, Int), (Half, Float), (Byte, Char), (BFloat16, Half), (Float, Double).
std::vector<std::pair<ScalarType, ScalarType>> mixed_pairs();

}  // namespace ember_conformance

// ---- in-place, out= and three-input checks ------------------------------------------

namespace ember_conformance {

// op_(x) applied to its argument; out=(x, out) writing into `out`.
using InplaceOp = std::function<void(at::Tensor&)>;
using OutOp = std::function<void(const at::Tensor&, at::Tensor&)>;

// For every dtype, shape and layout that can be written (expanded inputs
// are skipped: in-place ops refuse them): after op_(x), x holds ref(x) in
// its own dtype, at the same address.
void check_unary_inplace(const std::string& name, const InplaceOp& op,
                         const std::function<double(double)>& ref,
                         const Dtypes& dtypes, Domain domain, c10::Device device,
                         std::optional<Tol> tol = std::nullopt);

// For every dtype and shape, contiguous and transposed inputs: op(x, out)
// into an empty out of dtype result(dtype) (resized), and into a
// transposed out of the right shape (written through its strides), gives
// ref(x).
void check_unary_out(const std::string& name, const OutOp& op,
                     const std::function<double(double)>& ref, const Dtypes& dtypes,
                     Domain domain, c10::Device device,
                     const ResultDtype& result = same_dtype,
                     std::optional<Tol> tol = std::nullopt);

using TernaryOp =
    std::function<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>;

// The shape triples every ternary check covers: equal shapes, three-way
// broadcasting, 0-dim with n-d, zero-size.
const std::vector<std::vector<std::vector<int64_t>>>& ternary_shape_triples();

// For every dtype triple, shape triple and layout of each input: op(a, b,
// c) equals ref(a, b, c) with all three broadcast, rounded to result(the
// promoted dtype of the inputs marked in `promotes`).
void check_ternary(const std::string& name, const TernaryOp& op,
                   const std::function<double(double, double, double)>& ref,
                   const std::vector<std::vector<ScalarType>>& dtype_triples,
                   const std::vector<Domain>& domains, c10::Device device,
                   const ResultDtype& result = same_dtype,
                   std::vector<bool> promotes = {true, true, true},
                   std::optional<Tol> tol = std::nullopt);

// torch.result_type of tensors with these dtypes and dims (see the
// two-tensor result_type above).
ScalarType result_type(const std::vector<std::pair<ScalarType, int64_t>>& tensors);

// OpTest plus what the out= tests use: a random tensor on the device under
// test, and an empty (0-element) out of a dtype, which the op must resize.
class OutTest : public OpTest {
 protected:
  at::Tensor rand(const std::vector<int64_t>& shape, ScalarType dtype = kFloat,
                  Domain domain = {-2, 2}, uint64_t seed = 3) const {
    return make_tensor(random_ref(shape, dtype, domain, seed), dtype, device());
  }
  at::Tensor empty(ScalarType dtype) const { return at::empty({0}, options(dtype)); }
};

}  // namespace ember_conformance
