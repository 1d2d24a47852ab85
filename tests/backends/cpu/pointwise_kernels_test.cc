// The CPU plugin's elementwise kernels, called directly (not through the
// dispatcher), checked against plain references on contiguous, transposed,
// broadcast, zero-size and 0-dim inputs of every dtype.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/kernels.h"
#include "c10/core/ScalarType.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"
#include "tests/support/error_of.h"

namespace {

using c10::ScalarType;
using ember_test::errorOf;
using ::testing::HasSubstr;
namespace cpu = ember::cpu;

constexpr ScalarType kAllDtypes[] = {
#define EMBER_TEST_DTYPE_(cpp_type, name) ScalarType::name,
    C10_FORALL_SCALAR_TYPES(EMBER_TEST_DTYPE_)
#undef EMBER_TEST_DTYPE_
};

// ---- tensors, written and read without the kernels under test ------------------

double load(const void* p, ScalarType t) {
  switch (t) {
#define EMBER_TEST_LOAD_(cpp_type, name) \
  case ScalarType::name:                 \
    return static_cast<double>(static_cast<float>(*static_cast<const cpp_type*>(p)));
    EMBER_TEST_LOAD_(::c10::Half, Half)
    EMBER_TEST_LOAD_(::c10::BFloat16, BFloat16)
#undef EMBER_TEST_LOAD_
    case ScalarType::Double:
      return *static_cast<const double*>(p);
    case ScalarType::Long:
      return static_cast<double>(*static_cast<const int64_t*>(p));
    case ScalarType::Int:
      return *static_cast<const int32_t*>(p);
    case ScalarType::Short:
      return *static_cast<const int16_t*>(p);
    case ScalarType::Char:
      return *static_cast<const int8_t*>(p);
    case ScalarType::Byte:
      return *static_cast<const uint8_t*>(p);
    case ScalarType::Bool:
      return *static_cast<const bool*>(p) ? 1 : 0;
    case ScalarType::Float:
      return *static_cast<const float*>(p);
    default:
      break;
  }
  ADD_FAILURE() << "load: dtype " << t;
  return 0;
}

// `v` as dtype `t` holds it: integers wrap, bool is nonzero, 16-bit floats
// round.
double as_dtype(double v, ScalarType t) {
  const auto i = static_cast<int64_t>(v);
  switch (t) {
    case ScalarType::Byte: return static_cast<uint8_t>(i);
    case ScalarType::Char: return static_cast<int8_t>(i);
    case ScalarType::Short: return static_cast<int16_t>(i);
    case ScalarType::Int: return static_cast<int32_t>(i);
    case ScalarType::Long: return static_cast<double>(i);
    case ScalarType::Bool: return v != 0 ? 1 : 0;
    case ScalarType::Half: return static_cast<float>(c10::Half(static_cast<float>(v)));
    case ScalarType::BFloat16:
      return static_cast<float>(c10::BFloat16(static_cast<float>(v)));
    case ScalarType::Float: return static_cast<float>(v);
    default: return v;
  }
}

void store(void* p, ScalarType t, double v) {
  switch (t) {
    case ScalarType::Byte: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); return;
    case ScalarType::Char: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); return;
    case ScalarType::Short: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); return;
    case ScalarType::Int: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); return;
    case ScalarType::Long: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); return;
    case ScalarType::Bool: *static_cast<bool*>(p) = v != 0; return;
    case ScalarType::Half: *static_cast<c10::Half*>(p) = c10::Half(static_cast<float>(v)); return;
    case ScalarType::BFloat16:
      *static_cast<c10::BFloat16*>(p) = c10::BFloat16(static_cast<float>(v));
      return;
    case ScalarType::Float: *static_cast<float*>(p) = static_cast<float>(v); return;
    case ScalarType::Double: *static_cast<double*>(p) = v; return;
    default: ADD_FAILURE() << "store: dtype " << t;
  }
}

at::Tensor empty(std::vector<int64_t> sizes, ScalarType dtype = c10::kFloat) {
  return cpu::empty(sizes, dtype, std::nullopt, std::nullopt, std::nullopt,
                    std::nullopt);
}

// Byte offset of the row-major `linear`-th element of t.
int64_t offset_of(const at::Tensor& t, int64_t linear) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (linear % t.size(d)) * t.stride(d);
    linear /= t.size(d);
  }
  return offset * static_cast<int64_t>(t.itemsize());
}

std::vector<double> values(const at::Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) {
    out.push_back(load(static_cast<char*>(t.data_ptr()) + offset_of(t, i), t.dtype()));
  }
  return out;
}

void set_values(const at::Tensor& t, const std::vector<double>& v) {
  ASSERT_EQ(static_cast<int64_t>(v.size()), t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) {
    store(static_cast<char*>(t.data_ptr()) + offset_of(t, i), t.dtype(),
          v[static_cast<size_t>(i)]);
  }
}

at::Tensor tensor(const std::vector<double>& v, std::vector<int64_t> sizes,
                  ScalarType dtype = c10::kFloat) {
  at::Tensor t = empty(std::move(sizes), dtype);
  set_values(t, v);
  return t;
}

at::Tensor scalar_tensor(double v, ScalarType dtype) { return tensor({v}, {}, dtype); }

at::Tensor ones(std::vector<int64_t> sizes, ScalarType dtype) {
  at::Tensor t = empty(std::move(sizes), dtype);
  set_values(t, std::vector<double>(static_cast<size_t>(t.numel()), 1.0));
  return t;
}

// A 0-dim tensor made from a number, as at::add(t, 2) makes one.
at::Tensor wrapped(double v, ScalarType dtype) {
  at::Tensor t = scalar_tensor(v, dtype);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

// A view of base's storage, as as_strided makes one.
at::Tensor view(const at::Tensor& base, std::vector<int64_t> sizes,
                std::vector<int64_t> strides, int64_t offset = 0) {
  c10::Storage storage = base.storage();
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), base.dtype());
  impl->set_sizes_and_strides(sizes, strides, offset);
  return at::Tensor(std::move(impl));
}

// t.t() for a 2-d t.
at::Tensor transposed(const at::Tensor& t) {
  return view(t, {t.size(1), t.size(0)}, {t.stride(1), t.stride(0)}, t.storage_offset());
}

// A [rows, cols] tensor whose logical values are `v` (row-major) but which
// is stored transposed (non-contiguous).
at::Tensor transposed_tensor(const std::vector<double>& v, int64_t rows, int64_t cols,
                             ScalarType dtype = c10::kFloat) {
  at::Tensor t = transposed(empty({cols, rows}, dtype));
  set_values(t, v);
  return t;
}

void expect_values(const at::Tensor& t, const std::vector<double>& expected,
                   double tolerance = 0) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
          << "element " << i << " of " << t.dtype();
    }
  }
}

std::vector<double> sample(ScalarType t, int which) {
  if (t == ScalarType::Bool) {
    return which == 0 ? std::vector<double>{0, 1, 1, 0, 1, 0}
                      : std::vector<double>{1, 1, 0, 0, 0, 1};
  }
  if (t == ScalarType::Byte) {
    return which == 0 ? std::vector<double>{0, 1, 2, 3, 250, 7}
                      : std::vector<double>{5, 4, 3, 2, 1, 9};
  }
  return which == 0 ? std::vector<double>{-3, -1, 0, 1, 2, 7}
                    : std::vector<double>{5, -4, 3, 2, 1, -2};
}

template <typename F>
std::vector<double> map2(const std::vector<double>& a, const std::vector<double>& b,
                         ScalarType out, F f) {
  std::vector<double> r;
  for (size_t i = 0; i < a.size(); ++i) r.push_back(as_dtype(f(a[i], b[i]), out));
  return r;
}

class WarningRecorder : public c10::WarningHandler {
 public:
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
  std::vector<std::string> messages;
};

// ---- type promotion --------------------------------------------------------------

TEST(TypePromotion, FollowsTorchResultType) {
  struct Case {
    at::Tensor a, b;
    ScalarType expected;
  };
  const Case cases[] = {
      {ones({2}, c10::kInt), ones({2}, c10::kFloat), c10::kFloat},
      {ones({2}, c10::kByte), ones({2}, c10::kChar), c10::kShort},
      {ones({2}, c10::kFloat), scalar_tensor(1, c10::kDouble), c10::kFloat},
      {wrapped(2, c10::kLong), ones({2}, c10::kFloat), c10::kFloat},
      {ones({2}, c10::kInt), wrapped(2.5, c10::kDouble), c10::kFloat},
      {ones({2}, c10::kInt), scalar_tensor(1, c10::kLong), c10::kInt},
      {ones({2}, c10::kInt), scalar_tensor(1, c10::kDouble), c10::kDouble},
      {ones({2}, c10::kBool), wrapped(2, c10::kLong), c10::kLong},
      {ones({2}, c10::kHalf), wrapped(2.5, c10::kDouble), c10::kHalf},
      {ones({2}, c10::kByte), wrapped(300, c10::kLong), c10::kByte},
      {scalar_tensor(1, c10::kInt), wrapped(1.5, c10::kDouble), c10::kFloat},
      {ones({2}, c10::kHalf), ones({2}, c10::kBFloat16), c10::kFloat},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(cpu::result_type({&c.a, &c.b}), c.expected)
        << c.a.dtype() << " with " << c.b.dtype();
    EXPECT_EQ(cpu::add(c.a, c.b, 1).dtype(), c.expected);
  }
}

TEST(TypePromotion, ValuesAreComputedInThePromotedType) {
  at::Tensor i = tensor({1, 2, 3}, {3}, c10::kInt);
  expect_values(cpu::add(i, tensor({0.5, 0.25, 0.125}, {3}), 1), {1.5, 2.25, 3.125});
  expect_values(cpu::add(tensor({200, 10}, {2}, c10::kByte),
                         tensor({-100, 5}, {2}, c10::kChar), 1),
                {100, 15});
  at::Tensor f = tensor({1, 2}, {2});
  at::Tensor r = cpu::mul(f, scalar_tensor(0.1, c10::kDouble));
  EXPECT_EQ(r.dtype(), c10::kFloat);
  expect_values(r, {0.1, 0.2}, 1e-6);
  expect_values(cpu::add(wrapped(3, c10::kLong), f, 1), {4, 5});
  expect_values(cpu::mul(i, wrapped(0.5, c10::kDouble)), {0.5, 1, 1.5});
}

// ---- add / sub / mul / div -----------------------------------------------------------

TEST(Add, ContiguousFloatMatchesReference) {
  at::Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  at::Tensor b = tensor({10, 20, 30, 40, 50, 60}, {2, 3});
  at::Tensor c = cpu::add(a, b, 2);
  EXPECT_EQ(c.sizes(), c10::IntArrayRef({2, 3}));
  EXPECT_TRUE(c.is_contiguous());
  expect_values(c, {21, 42, 63, 84, 105, 126});
}

TEST(Add, EveryDtypeOnContiguousTransposedAndBroadcastInputs) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    const std::vector<double> bv = sample(t, 1);
    const int64_t alpha = t == ScalarType::Bool ? 1 : 2;
    auto ref = [alpha](double x, double y) { return x + static_cast<double>(alpha) * y; };
    const auto expected = map2(av, bv, t, ref);
    expect_values(cpu::add(tensor(av, {2, 3}, t), tensor(bv, {2, 3}, t), alpha), expected);
    // Both transposed: the iterator walks them in memory order.
    expect_values(cpu::add(transposed_tensor(av, 2, 3, t), transposed_tensor(bv, 2, 3, t),
                           alpha),
                  expected);
    // One transposed, one contiguous.
    expect_values(cpu::add(transposed_tensor(av, 2, 3, t), tensor(bv, {2, 3}, t), alpha),
                  expected);
    // A row broadcast down the columns, as [3] and as an expanded view.
    const std::vector<double> row(bv.begin(), bv.begin() + 3);
    std::vector<double> brow = row;
    brow.insert(brow.end(), row.begin(), row.end());
    const auto expected_row = map2(av, brow, t, ref);
    expect_values(cpu::add(tensor(av, {2, 3}, t), tensor(row, {3}, t), alpha), expected_row);
    at::Tensor expanded = view(tensor(row, {3}, t), {2, 3}, {0, 1});
    expect_values(cpu::add(tensor(av, {2, 3}, t), expanded, alpha), expected_row);
    expect_values(cpu::add(tensor(row, {1, 3}, t), tensor(av, {2, 3}, t), alpha),
                  map2(brow, av, t, ref));
  }
}

TEST(SubMul, EveryDtypeMatchesReference) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    const std::vector<double> bv = sample(t, 1);
    at::Tensor a = tensor(av, {2, 3}, t);
    at::Tensor b = transposed_tensor(bv, 2, 3, t);
    expect_values(cpu::mul(a, b), map2(av, bv, t, [](double x, double y) { return x * y; }));
    if (t == ScalarType::Bool) continue;
    expect_values(cpu::sub(a, b, 3),
                  map2(av, bv, t, [](double x, double y) { return x - 3 * y; }));
  }
}

TEST(Add, IntegersWrapAndHalfComputesInFloat) {
  expect_values(cpu::add(tensor({100, -128}, {2}, c10::kChar),
                         tensor({100, -1}, {2}, c10::kChar), 1),
                {-56, 127});
  // 2048 + 1 is not a Half; 2048 + 1 + 1 computed in float rounds once.
  expect_values(cpu::add(tensor({2048}, {1}, c10::kHalf), tensor({1}, {1}, c10::kHalf), 2),
                {2050});
  expect_values(cpu::add(tensor({1.5}, {1}, c10::kBFloat16),
                         tensor({0.25}, {1}, c10::kBFloat16), 1),
                {1.75});
}

TEST(Div, IsTrueDivisionAndPromotesIntegersToFloat) {
  at::Tensor a = tensor({7, -7, 1, 0}, {4}, c10::kLong);
  at::Tensor b = tensor({2, 2, 0, 0}, {4}, c10::kInt);
  at::Tensor q = cpu::div(a, b);
  EXPECT_EQ(q.dtype(), c10::kFloat);
  expect_values(q, {3.5, -3.5, INFINITY, NAN});
  for (ScalarType t : {c10::kDouble, c10::kHalf, c10::kBFloat16}) {
    at::Tensor r = cpu::div(tensor({1, 3, -5}, {3}, t), tensor({4, 2, 8}, {3}, t));
    EXPECT_EQ(r.dtype(), t);
    expect_values(r, {0.25, 1.5, -0.625});
  }
  expect_values(cpu::div(tensor({1, 0}, {2}, c10::kBool), tensor({1, 1}, {2}, c10::kBool)),
                {1, 0});
}

TEST(Add, ZeroSizeInputsMakeZeroSizeOutputs) {
  at::Tensor c = cpu::add(empty({0, 3}), tensor({1, 2, 3}, {3}), 1);
  EXPECT_EQ(c.sizes(), c10::IntArrayRef({0, 3}));
  EXPECT_EQ(c.numel(), 0);
  EXPECT_EQ(cpu::mul(empty({0}), empty({1})).sizes(), c10::IntArrayRef({0}));
  EXPECT_EQ(cpu::eq(empty({2, 0}, c10::kInt), empty({0})).dtype(), c10::kBool);
  EXPECT_EQ(cpu::exp(empty({0}, c10::kInt)).numel(), 0);
  EXPECT_THAT(errorOf([] { cpu::add(empty({0}), empty({2}), 1); }),
              HasSubstr("shapes [0] and [2] cannot be broadcast together"));
}

TEST(Add, ZeroDimInputs) {
  at::Tensor c = cpu::add(scalar_tensor(2, c10::kFloat), scalar_tensor(3, c10::kFloat), 1);
  EXPECT_EQ(c.dim(), 0);
  expect_values(c, {5});
  at::Tensor d = cpu::add(tensor({1, 2, 3}, {3}), scalar_tensor(10, c10::kFloat), 2);
  EXPECT_EQ(d.sizes(), c10::IntArrayRef({3}));
  expect_values(d, {21, 22, 23});
  // A 0-dim input converted to the common dtype, and a 0-dim result.
  at::Tensor e = cpu::mul(scalar_tensor(3, c10::kInt), wrapped(0.5, c10::kDouble));
  EXPECT_EQ(e.dim(), 0);
  EXPECT_EQ(e.dtype(), c10::kFloat);
  expect_values(e, {1.5});
}

TEST(Add, OutVariantResizesAndCasts) {
  at::Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  at::Tensor b = tensor({1, 1, 1}, {3});
  WarningRecorder warnings;
  c10::WarningUtils::WarningHandlerGuard guard(&warnings);

  at::Tensor out = empty({0});
  at::Tensor& r = cpu::add_out(a, b, 1, out);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(out.sizes(), c10::IntArrayRef({2, 3}));
  expect_values(out, {2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(warnings.messages.empty());

  at::Tensor wrong = empty({4});
  cpu::add_out(a, b, 1, wrong);
  EXPECT_EQ(wrong.sizes(), c10::IntArrayRef({2, 3}));
  expect_values(wrong, {2, 3, 4, 5, 6, 7});
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_THAT(warnings.messages[0], HasSubstr("was resized since it had shape [4]"));

  at::Tensor wider = empty({2, 3}, c10::kDouble);
  cpu::add_out(a, b, 1, wider);
  expect_values(wider, {2, 3, 4, 5, 6, 7});
  at::Tensor narrower = empty({2, 3}, c10::kInt);
  EXPECT_THAT(errorOf([&] { cpu::add_out(a, b, 1, narrower); }),
              HasSubstr("add: result type Float can't be cast to the desired output "
                        "type Int"));

  // A transposed output is written through its strides.
  at::Tensor t = transposed(empty({3, 2}));
  cpu::mul_out(a, b, t);
  expect_values(t, {1, 2, 3, 4, 5, 6});
  at::Tensor d = empty({3}, c10::kHalf);
  cpu::div_out(tensor({1, 2, 3}, {3}, c10::kInt), tensor({2, 2, 2}, {3}, c10::kInt), d);
  expect_values(d, {0.5, 1, 1.5});
  cpu::sub_out(a, b, 1, out);
  expect_values(out, {0, 1, 2, 3, 4, 5});
}

TEST(Add, InPlaceBroadcastsOtherButNotSelf) {
  at::Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  at::Tensor& r = cpu::add_(a, tensor({10, 20, 30}, {3}), 1);
  EXPECT_TRUE(r.is_same(a));
  expect_values(a, {11, 22, 33, 14, 25, 36});
  at::Tensor row = tensor({1, 2, 3}, {3});
  EXPECT_THAT(errorOf([&] { cpu::add_(row, a, 1); }),
              HasSubstr("add_: the output has shape [3] but the inputs broadcast to "
                        "shape [2, 3]"));
  // In place on a transposed tensor, and with itself as the other operand.
  at::Tensor t = transposed_tensor({1, 2, 3, 4, 5, 6}, 2, 3);
  cpu::mul_(t, t);
  expect_values(t, {1, 4, 9, 16, 25, 36});
  cpu::sub_(t, tensor({1, 1, 1, 1, 1, 1}, {2, 3}), 1);
  expect_values(t, {0, 3, 8, 15, 24, 35});
  cpu::div_(t, scalar_tensor(2, c10::kDouble));
  expect_values(t, {0, 1.5, 4, 7.5, 12, 17.5});
  // Half in place with a Float operand: computed in Float, written back.
  at::Tensor h = tensor({1, 2}, {2}, c10::kHalf);
  cpu::add_(h, tensor({0.5, 0.5}, {2}), 1);
  EXPECT_EQ(h.dtype(), c10::kHalf);
  expect_values(h, {1.5, 2.5});
  at::Tensor i = tensor({1, 2}, {2}, c10::kLong);
  EXPECT_THAT(errorOf([&] { cpu::div_(i, i); }),
              HasSubstr("div_: result type Float can't be cast to the desired output "
                        "type Long"));
}

TEST(Add, OutputOverlappingAnInputReadsTheInputFirst) {
  // out = a[1:], input = a[:-1]: a naive forward loop would smear a[0].
  at::Tensor a = tensor({1, 2, 3, 4, 5}, {5});
  at::Tensor out = view(a, {4}, {1}, 1);
  at::Tensor in = view(a, {4}, {1}, 0);
  cpu::add_out(in, tensor({0}, {1}), 1, out);
  expect_values(a, {1, 1, 2, 3, 4});
  // In place with a broadcast row of itself.
  at::Tensor m = tensor({1, 2, 3, 4}, {2, 2});
  cpu::add_(m, view(m, {2}, {1}, 0), 1);
  expect_values(m, {2, 4, 4, 6});
}

TEST(Add, RefusesAnExpandedOutput) {
  at::Tensor out = view(empty({3}), {2, 3}, {0, 1});
  EXPECT_THAT(errorOf([&] { cpu::add_out(empty({2, 3}), empty({2, 3}), 1, out); }),
              HasSubstr("more than one element of the written-to tensor refers to a "
                        "single memory location"));
}

TEST(Add, LargeNonContiguousInputsAcrossThreads) {
  // 401 x 299 elements: more than the parallel grain, and the split point
  // falls in the middle of a row.
  const int64_t rows = 401, cols = 299;
  std::vector<double> av, bv, expected;
  for (int64_t i = 0; i < rows * cols; ++i) {
    av.push_back(static_cast<double>(i % 1000));
    bv.push_back(static_cast<double>((i * 7) % 13));
    expected.push_back(av.back() - 2 * bv.back());
  }
  at::Tensor a = transposed_tensor(av, rows, cols);
  at::Tensor b = tensor(bv, {rows, cols});
  expect_values(cpu::sub(a, b, 2), expected);
  at::Tensor c = tensor(av, {rows, cols});
  cpu::sub_(c, b, 2);
  expect_values(c, expected);
  at::Tensor d = empty({rows, cols}, c10::kDouble);
  cpu::copy_(d, a, false);
  expect_values(d, av);
}

// ---- unary --------------------------------------------------------------------------------

TEST(Unary, NegAbsReluEveryDtype) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    at::Tensor a = transposed_tensor(av, 2, 3, t);
    std::vector<double> abs_ref, neg_ref, relu_ref;
    for (double x : av) {
      abs_ref.push_back(as_dtype(std::abs(x), t));
      neg_ref.push_back(as_dtype(-x, t));
      relu_ref.push_back(as_dtype(x < 0 ? 0 : x, t));
    }
    at::Tensor r = cpu::abs(a);
    EXPECT_EQ(r.dtype(), t);
    expect_values(r, abs_ref);
    if (t == ScalarType::Bool) continue;
    expect_values(cpu::neg(a), neg_ref);
    expect_values(cpu::relu(a), relu_ref);
  }
  expect_values(cpu::relu(tensor({NAN, -1}, {2})), {NAN, 0});
  expect_values(cpu::abs(tensor({-128}, {1}, c10::kChar)), {-128});
}

TEST(Unary, ExpLogSqrtComputeInFloatingTypes) {
  const std::vector<double> v = {0.25, 1, 4, 9, 2, 0};
  for (ScalarType t : {c10::kFloat, c10::kDouble, c10::kHalf, c10::kBFloat16}) {
    const double tol = t == c10::kBFloat16 ? 1e-2 : t == c10::kHalf ? 1e-3 : 1e-6;
    at::Tensor a = transposed_tensor(v, 2, 3, t);
    std::vector<double> e, l, s;
    for (double x : v) {
      const double in = as_dtype(x, t);
      e.push_back(std::exp(in));
      l.push_back(std::log(in));
      s.push_back(std::sqrt(in));
    }
    at::Tensor r = cpu::exp(a);
    EXPECT_EQ(r.dtype(), t);
    expect_values(r, e, tol);
    EXPECT_EQ(l.back(), -INFINITY);  // log(0)
    expect_values(cpu::log(a), l, tol);
    expect_values(cpu::sqrt(a), s, tol);
  }
  at::Tensor i = tensor({0, 1, 4}, {3}, c10::kInt);
  at::Tensor r = cpu::sqrt(i);
  EXPECT_EQ(r.dtype(), c10::kFloat);
  expect_values(r, {0, 1, 2});
  EXPECT_EQ(cpu::exp(tensor({1}, {1}, c10::kBool)).dtype(), c10::kFloat);
  expect_values(cpu::log(scalar_tensor(1, c10::kLong)), {0});
  expect_values(cpu::sqrt(tensor({-1}, {1})), {NAN});
}

// ---- comparisons ---------------------------------------------------------------------------

TEST(Compare, EveryDtypeGivesBool) {
  for (ScalarType t : kAllDtypes) {
    const std::vector<double> av = sample(t, 0);
    const std::vector<double> bv = sample(t, 1);
    at::Tensor a = tensor(av, {2, 3}, t);
    at::Tensor b = transposed_tensor(bv, 2, 3, t);
    at::Tensor eq = cpu::eq(a, b);
    EXPECT_EQ(eq.dtype(), c10::kBool);
    expect_values(eq, map2(av, bv, c10::kBool, [](double x, double y) { return x == y; }));
    expect_values(cpu::lt(a, b),
                  map2(av, bv, c10::kBool, [](double x, double y) { return x < y; }));
    expect_values(cpu::gt(a, b),
                  map2(av, bv, c10::kBool, [](double x, double y) { return x > y; }));
  }
  // Mixed dtypes compare in the promoted type; a number broadcasts.
  expect_values(cpu::lt(tensor({1, 2, 3}, {3}, c10::kInt), wrapped(2.5, c10::kDouble)),
                {1, 1, 0});
  expect_values(cpu::eq(tensor({NAN, 1}, {2}), tensor({NAN, 1}, {2}, c10::kDouble)), {0, 1});
}

// ---- fill_ / copy_ ---------------------------------------------------------------------------

TEST(Fill, EveryDtypeAndLayout) {
  for (ScalarType t : kAllDtypes) {
    at::Tensor a = empty({2, 3}, t);
    cpu::fill_(a, 1);
    expect_values(a, {1, 1, 1, 1, 1, 1});
    at::Tensor tr = transposed(empty({3, 2}, t));
    cpu::fill_(tr, true);
    expect_values(tr, {1, 1, 1, 1, 1, 1});
  }
  at::Tensor base = empty({3});
  at::Tensor expanded = view(base, {4, 3}, {0, 1});
  cpu::fill_(expanded, 2.5);
  expect_values(base, {2.5, 2.5, 2.5});
  at::Tensor s = empty({});
  cpu::fill_(s, -1);
  expect_values(s, {-1});
  at::Tensor nothing = empty({0});
  cpu::fill_(nothing, 3);
  at::Tensor bytes = empty({2}, c10::kByte);
  EXPECT_THAT(errorOf([&] { cpu::fill_(bytes, 300); }), HasSubstr("uint8_t"));
}

TEST(Copy, ConvertsBroadcastsAndHandlesAliasing) {
  at::Tensor f = tensor({1.9, -2.7, 0, 3}, {4});
  at::Tensor i = empty({4}, c10::kInt);
  cpu::copy_(i, f, false);
  expect_values(i, {1, -2, 0, 3});
  at::Tensor b = empty({4}, c10::kBool);
  cpu::copy_(b, f, false);
  expect_values(b, {1, 1, 0, 1});
  at::Tensor h = empty({2, 2}, c10::kHalf);
  cpu::copy_(h, transposed_tensor({1, 2, 3, 4}, 2, 2, c10::kBFloat16), false);
  expect_values(h, {1, 2, 3, 4});

  at::Tensor dst = empty({2, 3});
  at::Tensor& r = cpu::copy_(dst, tensor({1, 2, 3}, {3}, c10::kLong), false);
  EXPECT_TRUE(r.is_same(dst));
  expect_values(dst, {1, 2, 3, 1, 2, 3});
  cpu::copy_(dst, scalar_tensor(7, c10::kDouble), false);
  expect_values(dst, {7, 7, 7, 7, 7, 7});
  EXPECT_THAT(errorOf([&] { cpu::copy_(dst, empty({4}), false); }),
              HasSubstr("copy_: an input of shape [4] cannot be broadcast to the shape "
                        "[2, 3]"));

  at::Tensor same = tensor({1, 2}, {2});
  cpu::copy_(same, same, false);
  expect_values(same, {1, 2});
  // Overlapping views of one buffer: dst = a[1:], src = a[:-1].
  at::Tensor a = tensor({0, 1, 2, 3, 4, 5}, {6});
  at::Tensor shifted = view(a, {5}, {1}, 1);
  cpu::copy_(shifted, view(a, {5}, {1}, 0), false);
  expect_values(a, {0, 0, 1, 2, 3, 4});
  // A transposed copy of itself.
  at::Tensor m = tensor({1, 2, 3, 4}, {2, 2});
  cpu::copy_(m, transposed(m), false);
  expect_values(m, {1, 3, 2, 4});
}

// ---- empty -----------------------------------------------------------------------------------

TEST(Empty, MakesContiguousTensorsOfTheRequestedDtype) {
  at::Tensor t = cpu::empty({2, 3}, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, std::nullopt);
  EXPECT_EQ(t.dtype(), c10::kFloat);
  EXPECT_EQ(t.strides(), c10::IntArrayRef({3, 1}));
  EXPECT_TRUE(t.is_cpu());
  EXPECT_TRUE(t.key_set().has(c10::DispatchKey::CPU));
  at::Tensor cl = cpu::empty({2, 3, 4, 5}, c10::kHalf, c10::Layout::Strided,
                             c10::Device(c10::kCPU), false, c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(cl.strides(), c10::IntArrayRef({60, 1, 15, 3}));
  EXPECT_EQ(cl.dtype(), c10::kHalf);
  at::Tensor s = cpu::empty_strided({2, 3}, {1, 2}, c10::kLong, std::nullopt,
                                    std::nullopt, std::nullopt);
  EXPECT_EQ(s.strides(), c10::IntArrayRef({1, 2}));
  EXPECT_EQ(s.storage().nbytes(), 6 * sizeof(int64_t));
  EXPECT_EQ(cpu::empty({}, c10::kBool, {}, {}, {}, {}).dim(), 0);
  EXPECT_EQ(cpu::empty_strided({0, 4}, {4, 1}, {}, {}, {}, {}).storage().nbytes(), 0u);
}

TEST(Empty, RejectsBadArguments) {
  EXPECT_THAT(errorOf([] { empty({2, -1}); }),
              HasSubstr("empty: sizes must be non-negative, but got [2, -1] (size -1 "
                        "at dimension 1)"));
  EXPECT_THAT(errorOf([] {
                cpu::empty_strided({2}, {-1}, {}, {}, {}, {});
              }),
              HasSubstr("strides must be non-negative"));
  EXPECT_THAT(errorOf([] { cpu::empty({2}, {}, {}, {}, true, {}); }),
              HasSubstr("pin_memory"));
  EXPECT_THAT(errorOf([] { cpu::empty({2}, {}, {}, {}, {}, c10::MemoryFormat::ChannelsLast); }),
              HasSubstr("ChannelsLast needs 4 sizes"));
  EXPECT_THAT(errorOf([] { empty({INT64_MAX / 2, 4}); }),
              HasSubstr("needs more bytes than a 64-bit size holds"));
}

// ---- errors -----------------------------------------------------------------------------------

TEST(Errors, MessagesSayWhatIsWrongAndHowToFixIt) {
  EXPECT_EQ(errorOf([] { cpu::add(empty({2, 3}), empty({4}), 1); }),
            "add: shapes [2, 3] and [4] cannot be broadcast together; the trailing "
            "dimensions must match or be 1.");
  at::Tensor flags = tensor({1, 0}, {2}, c10::kBool);
  EXPECT_THAT(errorOf([&] { cpu::sub(flags, tensor({1, 1}, {2}), 1); }),
              HasSubstr("sub: Subtraction, the `-` operator, with a bool tensor is not "
                        "supported. If you are trying to invert a mask, use the `~` or "
                        "`logical_not()` operator instead."));
  EXPECT_THAT(errorOf([&] { cpu::sub_(flags, flags, 1); }),
              HasSubstr("with two bool tensors is not supported"));
  at::Tensor ints = tensor({1, 2}, {2}, c10::kInt);
  EXPECT_THAT(errorOf([&] { cpu::add(ints, ints, 2.5); }),
              HasSubstr("add: For integral input tensors, argument alpha must not be a "
                        "floating point number"));
  EXPECT_THAT(errorOf([&] { cpu::sub(ints, ints, 0.5); }),
              HasSubstr("argument alpha must not be a floating point number"));
  EXPECT_THAT(errorOf([&] { cpu::add(ints, ints, true); }),
              HasSubstr("Boolean alpha only supported for Boolean results"));
  EXPECT_THAT(errorOf([&] { cpu::neg(flags); }),
              HasSubstr("neg: Negation, the `-` operator, on a bool tensor is not "
                        "supported"));
  EXPECT_THAT(errorOf([&] { cpu::add(ints, at::Tensor(), 1); }),
              HasSubstr("add: input 1 is an undefined tensor"));
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] { cpu::mul_out(ints, ints, undefined); }),
              HasSubstr("mul: the out tensor is undefined"));
  EXPECT_THAT(errorOf([&] { cpu::add_(undefined, ints, 1); }),
              HasSubstr("add_: input 0 is an undefined tensor"));
  // Float alpha is fine for floating results; alpha that a type cannot hold is not.
  expect_values(cpu::add(tensor({1}, {1}), tensor({1}, {1}), 0.5), {1.5});
  EXPECT_THAT(errorOf([&] { cpu::add(tensor({1}, {1}, c10::kChar),
                                     tensor({1}, {1}, c10::kChar), 1000); }),
              HasSubstr("int8_t"));
}

// ---- the iterator itself -------------------------------------------------------------------------

TEST(TensorIterator, CoalescesDimensionsAndSkipsEmptyIterations) {
  at::Tensor out;
  at::Tensor a = empty({2, 3, 4});
  cpu::TensorIterator contiguous(
      cpu::TensorIteratorConfig("test").add_output(out).add_input(a).add_input(a));
  EXPECT_EQ(contiguous.ndim(), 1u);
  EXPECT_TRUE(contiguous.is_contiguous());
  int calls = 0;
  contiguous.for_each([&](char**, const int64_t* strides, int64_t n) {
    ++calls;
    EXPECT_EQ(n, 24);
    EXPECT_EQ(strides[0], 4);
  });
  EXPECT_EQ(calls, 1);

  at::Tensor out2;
  at::Tensor t = transposed(empty({4, 6}));
  cpu::TensorIterator strided(
      cpu::TensorIteratorConfig("test").add_output(out2).add_input(t));
  EXPECT_EQ(strided.ndim(), 2u);
  EXPECT_FALSE(strided.is_contiguous());

  at::Tensor out3;
  at::Tensor z = empty({3, 0});
  cpu::TensorIterator none(cpu::TensorIteratorConfig("test").add_output(out3).add_input(z));
  none.for_each([](char**, const int64_t*, int64_t) { ADD_FAILURE() << "called"; });
  EXPECT_EQ(none.output().sizes(), c10::IntArrayRef({3, 0}));

  at::Tensor out4;
  at::Tensor s = empty({});
  cpu::TensorIterator zero_dim(cpu::TensorIteratorConfig("test").add_output(out4).add_input(s));
  EXPECT_EQ(zero_dim.numel(), 1);
  int64_t seen = 0;
  zero_dim.for_each([&](char**, const int64_t*, int64_t n) { seen += n; });
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(zero_dim.output().dim(), 0);
}

TEST(TensorIterator, ManyDimensionsUseTheHeap) {
  // 10 dimensions, every other one broadcast: nothing coalesces away.
  std::vector<int64_t> sizes(10, 2);
  std::vector<int64_t> half = {2, 1, 2, 1, 2, 1, 2, 1, 2, 1};
  std::vector<double> av(1024), bv(32);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>(i);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<double>(i) * 1000;
  at::Tensor a = tensor(av, sizes, c10::kDouble);
  at::Tensor b = tensor(bv, half, c10::kDouble);
  std::vector<double> expected;
  for (int64_t i = 0; i < 1024; ++i) {
    int64_t bi = 0;
    for (int d = 0; d < 10; ++d) {
      const int64_t digit = (i >> (9 - d)) & 1;
      if (d % 2 == 0) bi = bi * 2 + digit;
    }
    expected.push_back(av[static_cast<size_t>(i)] + bv[static_cast<size_t>(bi)]);
  }
  expect_values(cpu::add(a, b, 1), expected);
}

}  // namespace
