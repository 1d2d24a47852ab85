// arange, linspace and eye: values against plain loops, dtype inference,
// out= variants, every dtype they support, and the error paths; the out=
// forms of empty, zeros, ones and full.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "tests/ops/conformance.h"

namespace {

using ember_conformance::errorOf;
using ember_conformance::HasSubstr;

std::vector<double> values(const at::Tensor& t) { return ember_conformance::to_ref(t).v; }

TEST(Arange, InfersLongFromIntegersAndFloatFromAnyFloat) {
  at::Tensor a = at::arange(5);
  EXPECT_EQ(a.scalar_type(), at::kLong);
  EXPECT_EQ(values(a), (std::vector<double>{0, 1, 2, 3, 4}));
  at::Tensor b = at::arange(1, 4);
  EXPECT_EQ(b.scalar_type(), at::kLong);
  EXPECT_EQ(values(b), (std::vector<double>{1, 2, 3}));
  at::Tensor c = at::arange(1, 2.5, 0.5);
  EXPECT_EQ(c.scalar_type(), at::kFloat);
  EXPECT_EQ(values(c), (std::vector<double>{1, 1.5, 2}));
  EXPECT_EQ(at::arange(2.0).scalar_type(), at::kFloat);
  EXPECT_EQ(at::arange(0, 10, 2.0).scalar_type(), at::kFloat);
  EXPECT_EQ(values(at::arange(10, 0, -3)), (std::vector<double>{10, 7, 4, 1}));
  EXPECT_EQ(at::arange(3, 3).numel(), 0);
  EXPECT_EQ(at::arange(0).numel(), 0);
}

TEST(Arange, MatchesALoopForEveryDtype) {
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kLong,
                     at::kInt, at::kShort, at::kChar, at::kByte}) {
    SCOPED_TRACE(c10::toString(dtype));
    const bool floating = c10::isFloatingType(dtype);
    const double start = floating ? -1.5 : 2, end = floating ? 3.2 : 40,
                 step = floating ? 0.7 : 3;
    at::Tensor t = at::arange(start, end, step, dtype);
    EXPECT_EQ(t.scalar_type(), dtype);
    std::vector<double> expected;
    for (int64_t i = 0; start + step * i < end; ++i) {
      expected.push_back(ember_conformance::as_dtype(start + step * i, dtype));
    }
    EXPECT_EQ(values(t), expected);
  }
}

TEST(Arange, IntegersStayExactBeyondDoublePrecision) {
  const int64_t big = (int64_t{1} << 60) + 1;
  at::Tensor t = at::arange(big, big + 3);
  const auto* p = static_cast<const int64_t*>(t.data_ptr());
  EXPECT_EQ(p[0], big);
  EXPECT_EQ(p[2], big + 2);
  EXPECT_EQ(t.numel(), 3);
}

TEST(Arange, OutVariantsResizeAndKeepTheOutputDtype) {
  at::Tensor out = at::empty({0}, at::kDouble);
  at::arange_out(out, 4);
  EXPECT_EQ(values(out), (std::vector<double>{0, 1, 2, 3}));
  at::Tensor ints = at::empty({0}, at::kInt);
  // An integral result truncates the step too: 0.5 becomes 0.
  EXPECT_THAT(errorOf([&] { at::arange_out(ints, 0, 1.5, 0.5); }),
              HasSubstr("arange: step must be nonzero"));
  at::arange_out(ints, -3, 3, 2);
  EXPECT_EQ(values(ints), (std::vector<double>{-3, -1, 1}));
  // A non-contiguous output of the right size is written through its strides.
  at::Tensor base = at::zeros({6});
  at::Tensor strided = base.slice(0, 0, 6, 2);
  at::arange_outf(1, 4, 1, strided);
  EXPECT_EQ(values(base), (std::vector<double>{1, 0, 2, 0, 3, 0}));
}

TEST(Arange, Errors) {
  EXPECT_THAT(errorOf([] { at::arange(0, 5, 0); }),
              HasSubstr("arange: step must be nonzero, but got step=0"));
  EXPECT_THAT(errorOf([] { at::arange(0, 5, -1); }),
              HasSubstr("arange: upper bound and larger bound inconsistent with step "
                        "sign: start=0, end=5, step=-1"));
  EXPECT_THAT(errorOf([] { at::arange(5, 0, 1.5); }),
              HasSubstr("inconsistent with step sign"));
  EXPECT_THAT(errorOf([] { at::arange(-1.0); }), HasSubstr("inconsistent with step sign"));
  EXPECT_THAT(errorOf([] { at::arange(0, INFINITY); }),
              HasSubstr("arange: unsupported range 0 -> inf"));
  EXPECT_THAT(errorOf([] { at::arange(3, at::kBool); }),
              HasSubstr("arange: dtype Bool is not supported"));
  EXPECT_THAT(errorOf([] { at::arange(0.0, 1e300, 1e-300); }),
              HasSubstr("has too many elements"));
}

TEST(Linspace, IncludesBothEndsAndDefaultsToFloat) {
  at::Tensor t = at::linspace(0, 1, 5);
  EXPECT_EQ(t.scalar_type(), at::kFloat);
  EXPECT_EQ(values(t), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values(at::linspace(-1, 1, 1)), std::vector<double>{-1});
  EXPECT_EQ(at::linspace(0, 1, 0).numel(), 0);
  at::Tensor d = at::linspace(3, -3, 7, at::kDouble);
  EXPECT_EQ(values(d), (std::vector<double>{3, 2, 1, 0, -1, -2, -3}));
  // Integral results truncate; the second half counts back from end.
  EXPECT_EQ(values(at::linspace(0, 10, 4, at::kLong)), (std::vector<double>{0, 3, 6, 10}));
}

TEST(Linspace, MatchesALoopForEveryDtype) {
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kLong,
                     at::kInt, at::kShort, at::kChar, at::kByte}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t steps = 37;
    const double a = 2, b = 90;
    at::Tensor t = at::linspace(a, b, steps, dtype);
    const auto v = values(t);
    ASSERT_EQ(static_cast<int64_t>(v.size()), steps);
    EXPECT_EQ(v.front(), a);
    EXPECT_EQ(v.back(), b);
    const double tol = dtype == at::kBFloat16 ? 0.5 : dtype == at::kHalf ? 0.05 : 1e-5;
    for (int64_t i = 0; i < steps; ++i) {
      const double exact = a + (b - a) * static_cast<double>(i) / (steps - 1);
      if (c10::isFloatingType(dtype)) {
        EXPECT_NEAR(v[i], exact, tol * std::abs(exact) + 1e-12) << i;
      } else {
        EXPECT_NEAR(v[i], exact, 1.0) << i;
        EXPECT_EQ(v[i], std::floor(v[i]));
      }
    }
  }
}

TEST(Linspace, OutAndErrors) {
  at::Tensor out = at::empty({2}, at::kDouble);
  at::linspace_out(out, 1, 2, 3);
  EXPECT_EQ(values(out), (std::vector<double>{1, 1.5, 2}));
  EXPECT_THAT(errorOf([] { at::linspace(0, 1, -1); }),
              HasSubstr("linspace: number of steps must be non-negative, but got "
                        "steps=-1"));
  EXPECT_THAT(errorOf([&] { at::linspace_out(out, 0, 1, -2); }),
              HasSubstr("linspace: number of steps must be non-negative"));
  EXPECT_THAT(errorOf([] { at::linspace(0, 1, 3, at::kBool); }),
              HasSubstr("linspace: dtype Bool is not supported"));
}

TEST(Eye, SquareAndRectangularForEveryDtype) {
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kLong,
                     at::kInt, at::kByte, at::kBool}) {
    SCOPED_TRACE(c10::toString(dtype));
    for (auto nm : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {2, 4}, {4, 2}, {0, 3}}) {
      at::Tensor t = at::eye(nm.first, nm.second, dtype);
      EXPECT_EQ(t.scalar_type(), dtype);
      EXPECT_EQ(t.sizes(), c10::IntArrayRef({nm.first, nm.second}));
      const auto v = values(t);
      for (int64_t i = 0; i < nm.first; ++i) {
        for (int64_t j = 0; j < nm.second; ++j) {
          ASSERT_EQ(v[i * nm.second + j], i == j ? 1 : 0);
        }
      }
    }
  }
  EXPECT_EQ(at::eye(3).scalar_type(), at::kFloat);
  EXPECT_EQ(at::eye(3).sizes(), c10::IntArrayRef({3, 3}));
}

TEST(Eye, OutWritesThroughStridesAndErrors) {
  at::Tensor out = at::full({3, 3}, 7.0).t();
  at::eye_out(out, 3);
  EXPECT_EQ(values(out), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  at::Tensor resized = at::empty({0}, at::kInt);
  at::eye_out(resized, 2, 3);
  EXPECT_EQ(values(resized), (std::vector<double>{1, 0, 0, 0, 1, 0}));
  EXPECT_THAT(errorOf([] { at::eye(-1); }),
              HasSubstr("eye: n must be greater or equal to 0, got -1"));
  EXPECT_THAT(errorOf([] { at::eye(2, -3); }),
              HasSubstr("eye: m must be greater or equal to 0, got -3"));
  EXPECT_THAT(errorOf([&] { at::eye_out(resized, -2); }),
              HasSubstr("eye: n must be greater or equal to 0, got -2"));
}

// zeros/ones/full/empty.out as PyTorch's: the out keeps its dtype, is
// resized with resize_ (no deprecation warning, unlike structured out=
// kernels) and filled; one of the right shape keeps its strides.
TEST(FactoryOut, ResizeWithoutWarningKeepTheDtypeAndFill) {
  struct Capture : c10::WarningHandler {
    std::vector<std::string> seen;
    void process(const c10::Warning& w) override { seen.push_back(w.msg()); }
  } capture;
  c10::WarningUtils::WarningHandlerGuard guard(&capture);
  at::Tensor l = at::full({5}, 9, at::kLong);  // 5 elements, resized to 6
  EXPECT_EQ(&at::zeros_out(l, {2, 3}), &l);
  EXPECT_EQ(l.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(l.scalar_type(), at::kLong);
  EXPECT_EQ(values(l), (std::vector<double>(6, 0.0)));
  at::Tensor d = at::empty({0}, at::kDouble);
  at::ones_out(d, {4});
  EXPECT_EQ(values(d), (std::vector<double>(4, 1.0)));
  at::Tensor i = at::empty({0}, at::kInt);
  at::full_out(i, {2, 2}, 7);
  EXPECT_EQ(values(i), (std::vector<double>(4, 7.0)));
  at::full_outf({3}, 2.5, d);  // shrinks
  EXPECT_EQ(values(d), (std::vector<double>(3, 2.5)));
  // An out of the right shape is written through its strides.
  at::Tensor t = at::zeros({3, 2}).t();
  at::full_out(t, {2, 3}, -1.5);
  EXPECT_EQ(t.stride(0), 1);
  EXPECT_EQ(values(t), (std::vector<double>(6, -1.5)));
  at::Tensor e = at::zeros({1}, at::kShort);
  at::empty_out(e, {2, 5});
  EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(e.scalar_type(), at::kShort);
  EXPECT_TRUE(capture.seen.empty()) << capture.seen.front();
}

TEST(Factories, NegativeSizesNameTheFactoryCalled) {
  EXPECT_THAT(errorOf([] { at::full({-3}, 1.0); }),
              HasSubstr("full: sizes must be non-negative, but got [-3] (size -3 at "
                        "dimension 0). Pass sizes >= 0."));
  EXPECT_THAT(errorOf([] { at::zeros({2, -1}); }),
              HasSubstr("zeros: sizes must be non-negative, but got [2, -1]"));
  EXPECT_THAT(errorOf([] { at::ones({-1}); }), HasSubstr("ones: sizes must be non-negative"));
}

TEST(FactoryOut, Errors) {
  at::Tensor f = at::empty({0});
  EXPECT_THAT(errorOf([&] { at::zeros_out(f, {2, -1}); }),
              HasSubstr("zeros: sizes must be non-negative, but got [2, -1]"));
  EXPECT_THAT(errorOf([&] { at::full_out(f, {-3}, 1); }),
              HasSubstr("full: sizes must be non-negative"));
  EXPECT_THAT(errorOf([&] { at::empty_out(f, {2}, c10::MemoryFormat::Contiguous); }),
              HasSubstr("empty: 'memory_format' argument is incompatible with 'out' tensor "
                        "argument"));
  // A storage Ember does not own cannot grow.
  float buffer[2] = {0, 0};
  at::Tensor blob = at::from_blob(buffer, {2});
  EXPECT_THAT(errorOf([&] { at::ones_out(blob, {3}); }),
              HasSubstr("ones: the output needs 12 bytes to be resized to [3] but its storage "
                        "holds 8 and is not resizable"));
  at::ones_out(blob, {2});
  EXPECT_EQ(buffer[1], 1.0f);
  // Out tensors that require grad are refused by the autograd layer.
  at::Tensor leaf = at::zeros({2}).requires_grad_(true);
  EXPECT_THAT(errorOf([&] { at::zeros_out(leaf, {2}); }),
              HasSubstr("zeros(): functions with out=... arguments don't support automatic "
                        "differentiation"));
}

TEST(RandomFactories, DtypeDefaultsAndOptions) {
  EXPECT_EQ(at::rand({2}).scalar_type(), at::kFloat);
  EXPECT_EQ(at::randn({2}).scalar_type(), at::kFloat);
  EXPECT_EQ(at::randint(3, {2}).scalar_type(), at::kLong);
  EXPECT_EQ(at::randint(1, 3, {2}).scalar_type(), at::kLong);
  EXPECT_EQ(at::randperm(4).scalar_type(), at::kLong);
  EXPECT_EQ(at::randint(3, {2}, at::kInt).scalar_type(), at::kInt);
  EXPECT_EQ(at::randperm(4, at::kFloat).scalar_type(), at::kFloat);
  EXPECT_EQ(at::rand({2, 3}, at::kHalf).sizes(), c10::IntArrayRef({2, 3}));
  // Options reach the backend's empty.
  EXPECT_THAT(errorOf([] { at::rand({2}, at::TensorOptions().pinned_memory(true)); }),
              HasSubstr("empty: no pinned-memory allocator for CUDA"));
}

}  // namespace
