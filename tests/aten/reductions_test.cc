// Reductions end to end (sum, mean, amax, amin, max.dim, min.dim, argmax,
// argmin): through the dispatcher into the CPU plugin, checked against plain
// reference loops written here, on contiguous, transposed, expanded,
// zero-size and 0-dim inputs and in several dtypes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <tuple>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "tests/support/error_of.h"

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using ember_test::errorOf;

// ---- element access ----------------------------------------------------------------

double read(const at::Tensor& t, int64_t offset) {
  const char* base = static_cast<const char*>(t.data_ptr());
  switch (t.scalar_type()) {
    case at::kFloat: return reinterpret_cast<const float*>(base)[offset];
    case at::kDouble: return reinterpret_cast<const double*>(base)[offset];
    case at::kLong: return static_cast<double>(reinterpret_cast<const int64_t*>(base)[offset]);
    case at::kInt: return reinterpret_cast<const int32_t*>(base)[offset];
    case at::kByte: return reinterpret_cast<const uint8_t*>(base)[offset];
    case at::kBool: return reinterpret_cast<const bool*>(base)[offset] ? 1 : 0;
    case at::kHalf: return static_cast<float>(reinterpret_cast<const c10::Half*>(base)[offset]);
    default: ADD_FAILURE() << "unexpected dtype " << t.scalar_type(); return 0;
  }
}

void write(const at::Tensor& t, int64_t offset, double v) {
  char* base = static_cast<char*>(t.data_ptr());
  switch (t.scalar_type()) {
    case at::kFloat: reinterpret_cast<float*>(base)[offset] = static_cast<float>(v); break;
    case at::kDouble: reinterpret_cast<double*>(base)[offset] = v; break;
    case at::kLong: reinterpret_cast<int64_t*>(base)[offset] = static_cast<int64_t>(v); break;
    case at::kInt: reinterpret_cast<int32_t*>(base)[offset] = static_cast<int32_t>(v); break;
    case at::kByte: reinterpret_cast<uint8_t*>(base)[offset] = static_cast<uint8_t>(v); break;
    case at::kBool: reinterpret_cast<bool*>(base)[offset] = v != 0; break;
    case at::kHalf:
      reinterpret_cast<c10::Half*>(base)[offset] = c10::Half(static_cast<float>(v));
      break;
    default: ADD_FAILURE() << "unexpected dtype " << t.scalar_type();
  }
}

// Calls f(index, offset) for every element of t, in row-major order.
void for_each_index(const at::Tensor& t,
                    const std::function<void(const std::vector<int64_t>&, int64_t)>& f) {
  if (t.numel() == 0) return;
  std::vector<int64_t> idx(static_cast<size_t>(t.dim()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < idx.size(); ++d) offset += idx[d] * t.strides()[d];
    f(idx, offset);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.sizes()[d]) break;
      idx[d] = 0;
    }
  }
}

// The elements in row-major order, as doubles.
std::vector<double> values(const at::Tensor& t) {
  std::vector<double> out;
  for_each_index(t, [&](const std::vector<int64_t>&, int64_t off) { out.push_back(read(t, off)); });
  return out;
}

// Deterministic values: small integers (exact in every dtype), with
// fractions for floating dtypes.
at::Tensor make(std::vector<int64_t> sizes, at::ScalarType dtype, int seed = 0) {
  at::Tensor t = at::empty(sizes, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t v = (i * 37 + seed * 11 + 5) % 23 - 11;
    if (dtype == at::kByte) v = (v + 11) % 23;
    if (dtype == at::kBool) v = v % 3 == 0;
    const bool floating = dtype == at::kFloat || dtype == at::kDouble || dtype == at::kHalf;
    write(t, i, floating ? static_cast<double>(v) * 0.25 : static_cast<double>(v));
  }
  return t;
}

// ---- reference reductions -------------------------------------------------------------

struct Reference {
  std::vector<int64_t> shape;
  std::vector<double> values;
  std::vector<double> indices;  // positions along the reduction, in order
};

// Folds the elements of `t` over `dims` (none: all) in row-major order:
// fold(value, index, x, pos) updates an output's value and index with the
// element x at position pos of its reduction (0 for the first).
Reference reference(const at::Tensor& t, std::vector<int64_t> dims, bool keepdim,
                    const std::function<void(double&, double&, double, int64_t)>& fold) {
  const int64_t nd = t.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) reduced[static_cast<size_t>(d < 0 ? d + nd : d)] = true;
  Reference r;
  int64_t outputs = 1;
  for (int64_t d = 0; d < nd; ++d) {
    const bool red = reduced[static_cast<size_t>(d)];
    if (!red) outputs *= t.size(d);
    if (!red || keepdim) r.shape.push_back(red ? 1 : t.size(d));
  }
  r.values.assign(static_cast<size_t>(outputs), 0);
  r.indices.assign(static_cast<size_t>(outputs), -1);
  std::vector<int64_t> count(static_cast<size_t>(outputs), 0);
  for_each_index(t, [&](const std::vector<int64_t>& idx, int64_t off) {
    int64_t o = 0;
    for (int64_t d = 0; d < nd; ++d) {
      if (!reduced[static_cast<size_t>(d)]) o = o * t.size(d) + idx[static_cast<size_t>(d)];
    }
    const size_t u = static_cast<size_t>(o);
    fold(r.values[u], r.indices[u], read(t, off), count[u]++);
  });
  return r;
}

Reference ref_sum(const at::Tensor& t, std::vector<int64_t> dims = {}, bool keepdim = false) {
  return reference(t, dims, keepdim,
                   [](double& a, double&, double x, int64_t) { a += x; });
}

Reference ref_mean(const at::Tensor& t, std::vector<int64_t> dims = {}, bool keepdim = false) {
  Reference r = reference(t, dims, keepdim, [](double& a, double& n, double x, int64_t pos) {
    a += x;
    n = static_cast<double>(pos + 1);
  });
  for (size_t o = 0; o < r.values.size(); ++o) {
    r.values[o] = r.indices[o] < 0 ? std::nan("") : r.values[o] / r.indices[o];
  }
  return r;
}

// The largest (smallest) element and the position of its first occurrence;
// the first NaN wins over everything.
Reference ref_extreme(const at::Tensor& t, std::vector<int64_t> dims, bool keepdim,
                      bool max) {
  return reference(t, dims, keepdim, [max](double& a, double& i, double x, int64_t pos) {
    const bool better = max ? x > a : x < a;
    if (pos == 0 || (!std::isnan(a) && (std::isnan(x) || better))) {
      a = x;
      i = static_cast<double>(pos);
    }
  });
}

void expect_matches(const at::Tensor& actual, const Reference& expected, double tol = 0) {
  ASSERT_EQ(actual.sizes().vec(), expected.shape);
  const std::vector<double> got = values(actual);
  ASSERT_EQ(got.size(), expected.values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected.values[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_NEAR(got[i], expected.values[i], tol * (1 + std::fabs(expected.values[i])))
          << "element " << i;
    }
  }
}

void expect_indices(const at::Tensor& actual, const Reference& expected) {
  EXPECT_EQ(actual.scalar_type(), at::kLong);
  ASSERT_EQ(actual.sizes().vec(), expected.shape);
  EXPECT_EQ(values(actual), expected.indices);
}

// Layouts of a [3, 4, 5] tensor: contiguous, a transposed view, an expanded
// one (stride 0) and a strided slice.
std::vector<std::pair<const char*, at::Tensor>> layouts(at::ScalarType dtype) {
  return {
      {"contiguous", make({3, 4, 5}, dtype)},
      {"transposed", make({5, 4, 3}, dtype, 1).transpose(0, 2)},
      {"expanded", make({1, 4, 1}, dtype, 2).expand({3, 4, 5})},
      {"sliced", make({3, 4, 10}, dtype, 3).slice(2, 1, 10, 2)},
  };
}

const std::vector<std::vector<int64_t>> kDimLists = {
    {}, {0}, {1}, {2}, {-1}, {0, 2}, {-3, -1}, {2, 0, 1}, {1, 2}};

TEST(Reductions, SumMatchesTheReferenceOnEveryLayoutAndDimList) {
  for (const auto& [name, t] : layouts(at::kFloat)) {
    for (const auto& dims : kDimLists) {
      for (bool keepdim : {false, true}) {
        SCOPED_TRACE(::testing::Message() << name << " dims " << c10::IntArrayRef(dims)
                                          << " keepdim " << keepdim);
        const at::Tensor s = at::sum(t, c10::IntArrayRef(dims), keepdim);
        EXPECT_EQ(s.scalar_type(), at::kFloat);
        expect_matches(s, ref_sum(t, dims, keepdim), 1e-6);
        expect_matches(at::mean(t, c10::IntArrayRef(dims), keepdim),
                       ref_mean(t, dims, keepdim), 1e-6);
        expect_matches(at::amax(t, dims, keepdim), ref_extreme(t, dims, keepdim, true));
        expect_matches(at::amin(t, dims, keepdim), ref_extreme(t, dims, keepdim, false));
      }
    }
    expect_matches(at::sum(t), ref_sum(t), 1e-6);
    expect_matches(t.sum(), ref_sum(t), 1e-6);
    expect_matches(at::mean(t), ref_mean(t), 1e-6);
  }
}

TEST(Reductions, SumOfIntegralAndBoolInputsIsLong) {
  for (at::ScalarType dtype : {at::kLong, at::kInt, at::kByte, at::kBool}) {
    for (const auto& [name, t] : layouts(dtype)) {
      SCOPED_TRACE(::testing::Message() << name << " " << dtype);
      for (const auto& dims : kDimLists) {
        const at::Tensor s = at::sum(t, c10::IntArrayRef(dims), true);
        EXPECT_EQ(s.scalar_type(), at::kLong);
        expect_matches(s, ref_sum(t, dims, true));
        expect_matches(at::amax(t, dims), ref_extreme(t, dims, false, true));
        expect_matches(at::amin(t, dims), ref_extreme(t, dims, false, false));
      }
      EXPECT_EQ(at::sum(t).scalar_type(), at::kLong);
      expect_matches(at::sum(t), ref_sum(t));
    }
  }
}

TEST(Reductions, DoubleAndHalfInputsKeepTheirDtype) {
  for (at::ScalarType dtype : {at::kDouble, at::kHalf}) {
    for (const auto& [name, t] : layouts(dtype)) {
      SCOPED_TRACE(::testing::Message() << name << " " << dtype);
      for (const auto& dims : kDimLists) {
        const at::Tensor s = at::sum(t, c10::IntArrayRef(dims));
        EXPECT_EQ(s.scalar_type(), dtype);
        expect_matches(s, ref_sum(t, dims), dtype == at::kHalf ? 1e-3 : 1e-12);
        expect_matches(at::mean(t, c10::IntArrayRef(dims)), ref_mean(t, dims),
                       dtype == at::kHalf ? 1e-3 : 1e-12);
        expect_matches(at::amax(t, dims), ref_extreme(t, dims, false, true));
      }
    }
  }
}

TEST(Reductions, DtypeConvertsTheInputBeforeReducing) {
  at::Tensor f = at::empty({3});
  for (int i = 0; i < 3; ++i) write(f, i, 1.75 + i);  // 1.75, 2.75, 3.75
  const at::Tensor as_long = at::sum(f, at::kLong);
  EXPECT_EQ(as_long.scalar_type(), at::kLong);
  EXPECT_EQ(as_long.item<int64_t>(), 1 + 2 + 3);  // truncated, then summed
  const at::Tensor ints = make({4, 5}, at::kInt);
  const at::Tensor d = at::sum(ints, c10::IntArrayRef{1}, false, at::kDouble);
  EXPECT_EQ(d.scalar_type(), at::kDouble);
  expect_matches(d, ref_sum(ints, {1}));
  const at::Tensor m = at::mean(ints, at::kFloat);
  EXPECT_EQ(m.scalar_type(), at::kFloat);
  expect_matches(m, ref_mean(ints), 1e-6);
  const at::Tensor i32 = at::sum(ints, at::kInt);
  EXPECT_EQ(i32.scalar_type(), at::kInt);
  expect_matches(i32, ref_sum(ints));
  EXPECT_EQ(at::sum(make({6}, at::kBool), at::kBool).scalar_type(), at::kBool);
}

TEST(Reductions, FloatSumsOfAMillionElementsAreAccurate) {
  const int64_t n = 1 << 20;
  at::Tensor t = at::full({n}, 0.1f);
  const double expected = static_cast<double>(0.1f) * static_cast<double>(n);
  EXPECT_NEAR(at::sum(t).item<float>(), expected, expected * 1e-7);
  EXPECT_NEAR(at::mean(t).item<float>(), 0.1f, 1e-8);
  // A long reduction per output (few outputs), and one across rows.
  const at::Tensor rows = t.view({2, n / 2});
  expect_matches(at::sum(rows, c10::IntArrayRef{1}), {{2}, {expected / 2, expected / 2}, {}},
                 1e-7);
  const at::Tensor cols = at::sum(t.view({n / 512, 512}), c10::IntArrayRef{0});
  for (double v : values(cols)) EXPECT_NEAR(v, expected / 512, expected / 512 * 1e-7);
}

TEST(Reductions, LargeInputsMatchTheReferenceOnEveryLoopOrder) {
  const at::Tensor t = make({300, 700}, at::kFloat);
  for (const auto& dims : std::vector<std::vector<int64_t>>{{}, {0}, {1}}) {
    expect_matches(at::sum(t, c10::IntArrayRef(dims)), ref_sum(t, dims), 1e-6);
    expect_matches(at::sum(t.t(), c10::IntArrayRef(dims)), ref_sum(t.t(), dims), 1e-6);
    expect_matches(at::amax(t, dims), ref_extreme(t, dims, false, true));
    expect_matches(at::amin(t.t(), dims), ref_extreme(t.t(), dims, false, false));
  }
  for (int64_t dim : {0, 1}) {
    const auto [v, i] = at::max(t, dim);
    const Reference r = ref_extreme(t, {dim}, false, true);
    expect_matches(v, r);
    expect_indices(i, r);
    expect_indices(at::argmin(t.t(), dim), ref_extreme(t.t(), {dim}, false, false));
  }
  expect_indices(at::argmax(t), ref_extreme(t, {}, false, true));
}

TEST(Reductions, ZeroSizeInputs) {
  const at::Tensor e = at::ones({0, 3});
  expect_matches(at::sum(e, c10::IntArrayRef{0}), {{3}, {0, 0, 0}, {}});
  expect_matches(at::sum(e, c10::IntArrayRef{1}, true), {{0, 1}, {}, {}});
  expect_matches(at::sum(e), {{}, {0}, {}});
  expect_matches(at::mean(e), {{}, {std::nan("")}, {}});
  expect_matches(at::mean(e, c10::IntArrayRef{0}), ref_mean(e, {0}));
  EXPECT_EQ(at::sum(at::ones({0}, at::kInt)).scalar_type(), at::kLong);
  // Reducing a dim with elements leaves an empty result, which is fine.
  expect_matches(at::amax(e, {1}), {{0}, {}, {}});
  const auto [v, i] = at::max(e, 1);
  EXPECT_EQ(v.sizes().vec(), std::vector<int64_t>{0});
  EXPECT_EQ(i.sizes().vec(), std::vector<int64_t>{0});
  expect_indices(at::argmin(e, 1, true), {{0, 1}, {}, {}});
}

TEST(Reductions, ZeroDimInputs) {
  const at::Tensor s = at::full({}, 2.5);
  for (const auto& dims : std::vector<std::vector<int64_t>>{{}, {0}, {-1}}) {
    for (bool keepdim : {false, true}) {
      const at::Tensor r = at::sum(s, c10::IntArrayRef(dims), keepdim);
      EXPECT_EQ(r.dim(), 0);
      EXPECT_EQ(r.item<float>(), 2.5f);
      EXPECT_EQ(at::mean(s, c10::IntArrayRef(dims), keepdim).item<float>(), 2.5f);
      EXPECT_EQ(at::amin(s, dims, keepdim).item<float>(), 2.5f);
    }
  }
  const auto [v, i] = at::max(s, 0, true);
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(v.item<float>(), 2.5f);
  EXPECT_EQ(i.item<int64_t>(), 0);
  EXPECT_EQ(at::argmax(s).item<int64_t>(), 0);
  EXPECT_EQ(at::argmin(s, -1).dim(), 0);
  EXPECT_EQ(at::sum(at::full({}, 3)).item<int64_t>(), 3);
}

TEST(Reductions, MaxAndMinReturnValuesAndFirstIndices) {
  at::Tensor t = at::empty({2, 4});
  const float data[] = {1, 3, 3, 2, 5, 5, -1, -1};
  for (int i = 0; i < 8; ++i) write(t, i, data[i]);
  const auto [v, i] = at::max(t, 1);
  EXPECT_THAT(values(v), ElementsAre(3, 5));
  EXPECT_THAT(values(i), ElementsAre(1, 0));
  EXPECT_EQ(i.scalar_type(), at::kLong);
  const auto [mv, mi] = t.min(-1, true);
  EXPECT_EQ(mv.sizes().vec(), (std::vector<int64_t>{2, 1}));
  EXPECT_THAT(values(mv), ElementsAre(1, -1));
  EXPECT_THAT(values(mi), ElementsAre(0, 2));
  EXPECT_THAT(values(at::argmax(t)), ElementsAre(4));
  EXPECT_THAT(values(t.argmin()), ElementsAre(6));
  EXPECT_EQ(at::argmax(t, std::nullopt, true).sizes().vec(), (std::vector<int64_t>{1, 1}));
  EXPECT_THAT(values(at::argmax(t, 0)), ElementsAre(1, 1, 0, 0));
  for (at::ScalarType dtype : {at::kDouble, at::kLong, at::kInt, at::kByte, at::kBool, at::kHalf}) {
    for (const auto& [name, x] : layouts(dtype)) {
      SCOPED_TRACE(::testing::Message() << name << " " << dtype);
      for (int64_t dim : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          const Reference r = ref_extreme(x, {dim}, keepdim, true);
          const auto [xv, xi] = at::max(x, dim, keepdim);
          EXPECT_EQ(xv.scalar_type(), dtype);
          expect_matches(xv, r);
          expect_indices(xi, r);
          expect_indices(at::argmax(x, dim, keepdim), r);
          const Reference rmin = ref_extreme(x, {dim}, keepdim, false);
          expect_indices(std::get<1>(x.min(dim, keepdim)), rmin);
          expect_indices(at::argmin(x, dim, keepdim), rmin);
        }
      }
      expect_indices(at::argmax(x), ref_extreme(x, {}, false, true));
      expect_indices(at::argmin(x), ref_extreme(x, {}, false, false));
    }
  }
}

TEST(Reductions, NanPropagatesThroughMaxAndMin) {
  const double nan = std::nan("");
  at::Tensor t = at::empty({2, 4}, at::kDouble);
  const double data[] = {1, nan, 7, nan, 4, 2, 0, 3};
  for (int i = 0; i < 8; ++i) write(t, i, data[i]);
  EXPECT_TRUE(std::isnan(at::amax(t).item<double>()));
  EXPECT_TRUE(std::isnan(at::amin(t).item<double>()));
  expect_matches(at::amax(t, {1}), {{2}, {nan, 4}, {}});
  expect_matches(at::amin(t, {0}), {{4}, {1, nan, 0, nan}, {}});
  const auto [v, i] = at::max(t, 1);
  expect_matches(v, {{2}, {nan, 4}, {}});
  EXPECT_THAT(values(i), ElementsAre(1, 0));  // the first NaN
  EXPECT_THAT(values(std::get<1>(at::min(t, 1))), ElementsAre(1, 2));
  EXPECT_THAT(values(at::argmax(t)), ElementsAre(1));
  EXPECT_TRUE(std::isnan(at::sum(t).item<double>()));
  // Large enough for several threads, with the NaN near the end.
  at::Tensor big = at::ones({100000});
  write(big, 99990, nan);
  EXPECT_TRUE(std::isnan(at::amax(big).item<float>()));
  EXPECT_EQ(at::argmin(big).item<int64_t>(), 99990);
  EXPECT_EQ(at::argmax(at::ones({100000})).item<int64_t>(), 0);
}

TEST(Reductions, MethodsAndBracedDimLists) {
  const at::Tensor t = make({3, 4}, at::kFloat);
  expect_matches(t.sum({0, 1}), ref_sum(t, {0, 1}), 1e-6);
  expect_matches(at::sum(t, 1), ref_sum(t, {1}), 1e-6);
  expect_matches(at::mean(t, {-2, 1}, true), ref_mean(t, {0, 1}, true), 1e-6);
  expect_matches(at::sum(t, {1}, true), ref_sum(t, {1}, true), 1e-6);
  expect_matches(t.mean({-1}), ref_mean(t, {-1}), 1e-6);
  expect_matches(t.amax({0}), ref_extreme(t, {0}, false, true));
  expect_matches(t.amin(), ref_extreme(t, {}, false, false));
  expect_matches(std::get<0>(t.max(0)), ref_extreme(t, {0}, false, true));
  expect_indices(t.argmax(1), ref_extreme(t, {1}, false, true));
  expect_matches(at::sum(t, c10::OptionalIntArrayRef()), ref_sum(t), 1e-6);  // None
  std::vector<int64_t> dims{0};
  expect_matches(t.sum(dims), ref_sum(t, {0}), 1e-6);
}

TEST(Reductions, ErrorsNameTheOpAndTheProblem) {
  const at::Tensor t = at::ones({2, 3});
  EXPECT_THAT(errorOf([&] { at::sum(t, {0, -2}); }),
              HasSubstr("sum: dim 0 appears multiple times in the list of dims [0, -2]"));
  EXPECT_THAT(errorOf([&] { at::amax(t, {1, 1}); }),
              HasSubstr("amax: dim 1 appears multiple times"));
  EXPECT_THAT(errorOf([&] { at::sum(t, {2}); }),
              HasSubstr("dimension 2 is out of range for a 2-d tensor"));
  EXPECT_THAT(errorOf([&] { at::max(t, -3); }),
              HasSubstr("max: dimension -3 is out of range"));
  EXPECT_THAT(errorOf([&] { at::mean(at::ones({2}, at::kLong)); }),
              HasSubstr("mean(): could not infer output dtype. Input dtype must be either "
                        "a floating point or complex dtype. Got: Long"));
  EXPECT_THAT(errorOf([&] { at::mean(t, c10::IntArrayRef{0}, false, at::kInt); }),
              HasSubstr("mean(): could not infer output dtype. Optional dtype must be "
                        "either a floating point or complex dtype. Got: Int"));
  const at::Tensor e = at::ones({2, 0});
  EXPECT_THAT(errorOf([&] { at::max(e, 1); }),
              HasSubstr("max(): Expected reduction dim 1 to have non-zero size"));
  EXPECT_THAT(errorOf([&] { at::min(e, -1); }),
              HasSubstr("min(): Expected reduction dim 1 to have non-zero size"));
  EXPECT_THAT(errorOf([&] { at::amax(e, {1}); }),
              HasSubstr("amax(): Expected reduction dim 1 to have non-zero size"));
  EXPECT_THAT(errorOf([&] { at::amin(e); }),
              HasSubstr("amin(): Expected reduction dim to be specified for "
                        "input.numel() == 0"));
  EXPECT_THAT(errorOf([&] { at::argmax(e); }),
              HasSubstr("argmax(): Expected reduction dim to be specified for "
                        "input.numel() == 0"));
  EXPECT_THAT(errorOf([&] { at::argmin(e, 1); }),
              HasSubstr("argmin(): Expected reduction dim 1 to have non-zero size"));
}

}  // namespace
