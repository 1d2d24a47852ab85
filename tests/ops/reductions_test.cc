// Conformance: the reductions (sum, mean, prod, var, std, var_mean,
// std_mean, norm, logsumexp, all, any, max/min over everything, amax,
// amin) against plain references over contiguous, transposed, sliced,
// expanded, zero-size and 0-dim inputs, every dim list, keepdim and dtype.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Reductions : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Reductions);

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- references -----------------------------------------------------------------------

using Fold = std::function<double(const std::vector<double>&)>;

// The reduction of r over `dims` (wrapped; empty: all), each output the fold
// of its elements in row-major order.
Ref ref_reduce(const Ref& r, std::vector<int64_t> dims, bool keepdim, const Fold& f) {
  const int64_t nd = r.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) {
    if (nd > 0) reduced[static_cast<size_t>(d < 0 ? d + nd : d)] = true;
  }
  std::vector<int64_t> out_shape;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (!reduced[d]) {
      out_shape.push_back(r.shape[d]);
    } else if (keepdim) {
      out_shape.push_back(1);
    }
  }
  const int64_t n_out = numel_of(out_shape);
  std::vector<std::vector<double>> buckets(static_cast<size_t>(n_out));
  for (int64_t i = 0; i < r.numel(); ++i) {
    const std::vector<int64_t> idx = unravel(i, r.shape);
    int64_t o = 0;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) {
        o = o * r.shape[d] + idx[d];
      }
    }
    buckets[static_cast<size_t>(o)].push_back(r.v[static_cast<size_t>(i)]);
  }
  Ref out(out_shape, std::vector<double>(static_cast<size_t>(n_out)));
  for (int64_t o = 0; o < n_out; ++o) {
    out.v[static_cast<size_t>(o)] = f(buckets[static_cast<size_t>(o)]);
  }
  return out;
}

double ref_sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}
double ref_prod(const std::vector<double>& v) {
  double s = 1;
  for (double x : v) s *= x;
  return s;
}
double ref_mean(const std::vector<double>& v) {
  return v.empty() ? kNaN : ref_sum(v) / static_cast<double>(v.size());
}
Fold ref_var(double correction, bool sqrt) {
  return [=](const std::vector<double>& v) {
    if (v.empty()) return kNaN;
    const double m = ref_mean(v);
    double m2 = 0;
    for (double x : v) m2 += (x - m) * (x - m);
    const double var = m2 / std::max(0.0, static_cast<double>(v.size()) - correction);
    return sqrt ? std::sqrt(var) : var;
  };
}
Fold ref_norm(double p) {
  return [=](const std::vector<double>& v) {
    if (std::isinf(p)) {
      double m = p > 0 ? 0 : kInf;
      for (double x : v) m = p > 0 ? std::max(m, std::fabs(x)) : std::min(m, std::fabs(x));
      return m;
    }
    double s = 0;
    for (double x : v) s += p == 0 ? (x != 0) : std::pow(std::fabs(x), p);
    return p == 0 ? s : std::pow(s, 1 / p);
  };
}
double ref_logsumexp(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::exp(x);
  return std::log(s);
}

// ---- the driver -------------------------------------------------------------------------

// The dim lists a reduction over `shape` is checked with: none (all dims),
// each dim, each dim counted from the end, and the first and last together.
std::vector<std::vector<int64_t>> dim_lists(const std::vector<int64_t>& shape,
                                            bool single_only) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  std::vector<std::vector<int64_t>> lists;
  if (!single_only) lists.push_back({});
  for (int64_t d = 0; d < std::max<int64_t>(nd, 1); ++d) {
    lists.push_back({d});
    lists.push_back({d - std::max<int64_t>(nd, 1)});
  }
  if (!single_only && nd >= 2) lists.push_back({0, nd - 1});
  if (!single_only && nd >= 3) lists.push_back({-1, 0, 1});
  return lists;
}

bool has_empty_reduction(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims) {
  if (numel_of(shape) != 0) return false;
  if (dims.empty()) return true;
  const int64_t nd = static_cast<int64_t>(shape.size());
  for (int64_t d : dims) {
    if (shape[static_cast<size_t>(d < 0 ? d + nd : d)] == 0) return true;
  }
  return false;
}

using DimOp = std::function<at::Tensor(const at::Tensor&, const std::vector<int64_t>&, bool)>;

struct ReduceCheck {
  std::string name;
  DimOp op;
  Fold ref;
  Dtypes dtypes;
  ResultDtype result = same_dtype;
  Domain domain = {};
  bool single_dim = false;   // the op takes one dim
  bool empty_ok = true;      // an empty reduction has a value (else: skipped)
  std::optional<Tol> tol = std::nullopt;
  bool everything = false;   // the op reduces every dim, with no dim argument
};

void run(const ReduceCheck& c, c10::Device device) {
  uint64_t seed = 11;
  for (ScalarType dtype : c.dtypes) {
    const ScalarType out_dtype = c.result(dtype);
    for (const auto& shape : test_shapes()) {
      for (const Case& in : layouts(shape, dtype, device, c.domain, seed++)) {
        const auto lists = c.everything ? std::vector<std::vector<int64_t>>{{}}
                                        : dim_lists(shape, c.single_dim);
        for (const auto& dims : lists) {
          if (!c.empty_ok && has_empty_reduction(shape, dims)) continue;
          for (bool keepdim : {false, true}) {
            if (c.everything && keepdim) continue;
            SCOPED_TRACE(c.name + " on " + c10::toString(dtype) + " " + in.name +
                         " dims " + ::testing::PrintToString(dims) +
                         (keepdim ? " keepdim" : ""));
            at::Tensor out;
            try {
              out = c.op(in.tensor, dims, keepdim);
            } catch (const c10::Error& e) {
              ADD_FAILURE() << "threw: " << e.what_without_backtrace();
              continue;
            }
            const Ref expected = as_dtype(ref_reduce(in.ref, dims, keepdim, c.ref), out_dtype);
            EXPECT_TRUE(close(out, expected, out_dtype, c.tol.value_or(default_tol(out_dtype))));
          }
        }
        EXPECT_TRUE(close(in.tensor, in.ref, dtype, Tol{0, 0})) << "the input changed";
      }
    }
  }
}

ScalarType long_for_integral(ScalarType t) {
  return c10::isIntegralType(t, true) ? kLong : t;
}

// ---- sum, mean, prod -----------------------------------------------------------------------

TEST_P(Reductions, SumOverDimListsAndDtypes) {
  run({"sum", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return at::sum(x, d, k);
       }, ref_sum, all_dtypes(), long_for_integral}, device());
  run({"sum dtype=Double", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return at::sum(x, d, k, kDouble);
       }, ref_sum, {kInt, kHalf, kFloat}, [](ScalarType) { return kDouble; }}, device());
}

TEST_P(Reductions, MeanOverDimLists) {
  run({"mean", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return at::mean(x, d, k);
       }, ref_mean, floating_dtypes()}, device());
}

TEST_P(Reductions, ProdOverOneDimAndAll) {
  run({"prod.dim_int", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return at::prod(x, d[0], k);
       }, ref_prod, all_dtypes(), long_for_integral, {-2, 2}, /*single_dim=*/true}, device());
  ReduceCheck all{"prod", [](const at::Tensor& x, const std::vector<int64_t>&, bool) {
                     return at::prod(x);
                   }, ref_prod, all_dtypes(), long_for_integral, {-2, 2}};
  all.everything = true;
  run(all, device());
}

TEST_P(Reductions, ProdOfEverythingAndDtypes) {
  const at::Tensor x = make_tensor(Ref({2, 3}, {1, 2, 3, -1, 2, 2}), kInt, device());
  const at::Tensor p = at::prod(x);
  EXPECT_EQ(p.scalar_type(), kLong);
  EXPECT_TRUE(close(p, Ref({}, {-24}), kLong));
  EXPECT_TRUE(close(x.prod(at::kFloat), Ref({}, {-24}), kFloat));
  EXPECT_TRUE(close(at::prod(x, 1, true, kDouble), Ref({2, 1}, {6, -4}), kDouble));
  // The product of nothing is 1, in every dtype.
  for (ScalarType t : all_dtypes()) {
    const at::Tensor e = at::empty({0, 2}, options(t));
    EXPECT_TRUE(close(at::prod(e), Ref({}, {1}), long_for_integral(t))) << t;
    EXPECT_TRUE(close(at::prod(e, 0), Ref({2}, {1, 1}), long_for_integral(t))) << t;
  }
  at::Tensor out = at::empty({0}, options(kDouble));
  at::prod_out(out, x, 0);
  EXPECT_TRUE(close(out, Ref({3}, {-1, 4, 6}), kDouble));  // computed in out's dtype
  // Integer products wrap as PyTorch's do.
  const at::Tensor big = make_tensor(Ref({2}, {4294967296.0, 4294967296.0}), kLong, device());
  EXPECT_EQ(at::prod(big).item<int64_t>(), 0);
}

TEST_P(Reductions, OutVariantsOfSumMeanAmaxArgmax) {
  const at::Tensor x = make_tensor(Ref({2, 3}, {1, 5, 3, 4, 2, 6}), kFloat, device());
  at::Tensor out = at::empty({7}, options(kFloat));  // resized (with a warning)
  at::sum_out(out, x, {1});
  EXPECT_TRUE(close(out, Ref({2}, {9, 12}), kFloat));
  at::Tensor d = at::empty({0}, options(kDouble));
  at::sum_out(d, x, {0}, true);
  EXPECT_TRUE(close(d, Ref({1, 3}, {5, 7, 9}), kDouble));
  at::mean_out(d, x, {1});
  EXPECT_TRUE(close(d, Ref({2}, {3, 4}), kDouble));
  at::Tensor m = at::empty({0}, options(kFloat));
  at::amax_out(m, x, {0});
  EXPECT_TRUE(close(m, Ref({3}, {4, 5, 6}), kFloat));
  at::amin_out(m, x, {1});
  EXPECT_TRUE(close(m, Ref({2}, {1, 2}), kFloat));
  at::Tensor i = at::empty({0}, options(kLong));
  at::argmax_out(i, x, 1);
  EXPECT_TRUE(close(i, Ref({2}, {1, 2}), kLong));
  at::argmin_out(i, x);
  EXPECT_TRUE(close(i, Ref({}, {0}), kLong));
  at::Tensor wrong = at::empty({0}, options(kDouble));
  EXPECT_THAT(errorOf([&] { at::amax_out(wrong, x, {0}); }),
              HasSubstr("amax: Expected out tensor to have dtype Float, but got Double"));
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] { at::argmax_out(undefined, x); }),
              HasSubstr("argmax: the out tensor is undefined"));
}

TEST_P(Reductions, HalfAndBFloat16AccumulateInFloat) {
  // 4096 ones: a Half accumulator would stop at 2048.
  for (ScalarType t : {kHalf, kBFloat16}) {
    const at::Tensor ones = at::ones({4096}, options(t));
    EXPECT_TRUE(close(at::sum(ones), Ref({}, {4096}), t)) << t;
    EXPECT_TRUE(close(at::mean(ones), Ref({}, {1}), t)) << t;
    EXPECT_TRUE(close(at::cumsum(ones, 0).slice(0, 4095), Ref({1}, {4096}), t)) << t;
    EXPECT_TRUE(close(at::norm(ones), Ref({}, {64}), t)) << t;
    EXPECT_TRUE(close(at::var(ones), Ref({}, {0}), t)) << t;
  }
}

// ---- var and std -------------------------------------------------------------------------------

TEST_P(Reductions, VarAndStdWithCorrections) {
  for (double corr : {0.0, 1.0, 2.0}) {
    const std::string c = " correction " + std::to_string(corr);
    run({"var" + c, [corr](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
           return at::var(x, d, c10::Scalar(corr), k);
         }, ref_var(corr, false), floating_dtypes()}, device());
    run({"std" + c, [corr](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
           return at::std(x, d, c10::Scalar(corr), k);
         }, ref_var(corr, true), floating_dtypes()}, device());
  }
}

TEST_P(Reductions, VarMeanAndStdMeanReturnBoth) {
  run({"var_mean[0]", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return std::get<0>(at::var_mean(x, d, c10::Scalar(1), k));
       }, ref_var(1, false), floating_dtypes()}, device());
  run({"var_mean[1]", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return std::get<1>(at::var_mean(x, d, c10::Scalar(1), k));
       }, ref_mean, floating_dtypes()}, device());
  run({"std_mean[0]", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return std::get<0>(at::std_mean(x, d, c10::Scalar(0), k));
       }, ref_var(0, true), floating_dtypes()}, device());
}

TEST_P(Reductions, UnbiasedOverloadsAreCorrectionOneOrZero) {
  const Ref r({2, 3}, {1, 2, 4, 8, 16, 32});
  const at::Tensor x = make_tensor(r, kDouble, device());
  const Tol tol = default_tol(kDouble);
  EXPECT_TRUE(close(at::var(x), ref_reduce(r, {}, false, ref_var(1, false)), kDouble, tol));
  EXPECT_TRUE(close(x.var(false), ref_reduce(r, {}, false, ref_var(0, false)), kDouble, tol));
  EXPECT_TRUE(close(at::var(x, {1}, false, true), ref_reduce(r, {1}, true, ref_var(0, false)),
                    kDouble, tol));
  EXPECT_TRUE(close(at::std(x, true), ref_reduce(r, {}, false, ref_var(1, true)), kDouble, tol));
  EXPECT_TRUE(close(x.std({0}, false), ref_reduce(r, {0}, false, ref_var(0, true)), kDouble,
                    tol));
  EXPECT_TRUE(close(std::get<0>(at::var_mean(x, false)),
                    ref_reduce(r, {}, false, ref_var(0, false)), kDouble, tol));
  EXPECT_TRUE(close(std::get<1>(at::std_mean(x, {1}, true)), ref_reduce(r, {1}, false, ref_mean),
                    kDouble, tol));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::var_out(out, x, {1}, true);
  EXPECT_TRUE(close(out, ref_reduce(r, {1}, false, ref_var(1, false)), kDouble, tol));
  at::std_out(out, x, {0}, c10::Scalar(0), true);
  EXPECT_TRUE(close(out, ref_reduce(r, {0}, true, ref_var(0, true)), kDouble, tol));
}

struct CaptureWarnings : c10::WarningHandler {
  std::vector<std::string> seen;
  void process(const c10::Warning& w) override { seen.push_back(w.msg()); }
};

TEST_P(Reductions, VarOfOneElementIsNaNWithAWarning) {
  CaptureWarnings capture;
  c10::WarningUtils::WarningHandlerGuard guard(&capture);
  const at::Tensor one = make_tensor(Ref({1}, {3}), kFloat, device());
  EXPECT_TRUE(std::isnan(at::var(one).item<double>()));
  ASSERT_EQ(capture.seen.size(), 1u);
  EXPECT_THAT(capture.seen[0], HasSubstr("var(): degrees of freedom is <= 0"));
  EXPECT_EQ(at::var(one, {0}, c10::Scalar(0)).item<double>(), 0);
  EXPECT_EQ(capture.seen.size(), 1u);
  // Empty reductions are NaN (with no warning: there is nothing to correct).
  const at::Tensor empty = at::empty({0, 3}, options(kFloat));
  EXPECT_TRUE(close(at::var(empty, at::IntArrayRef{0}), Ref({3}, {kNaN, kNaN, kNaN}), kFloat));
  EXPECT_TRUE(close(std::get<1>(at::std_mean(empty)), Ref({}, {kNaN}), kFloat));
}

TEST_P(Reductions, VarIsAccurateForLargeOffsets) {
  // sum(x^2) - n*mean^2 would lose every digit here.
  std::vector<double> v(10000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1e8 + static_cast<double>(i % 7);
  const Ref r({10000}, v);
  const at::Tensor x = make_tensor(r, kDouble, device());
  EXPECT_TRUE(close(at::var(x), ref_reduce(r, {}, false, ref_var(1, false)), kDouble,
                    Tol{1e-9, 0}));
  EXPECT_TRUE(close(at::var(x.view({100, 100}).t(), at::IntArrayRef{1}),
                    ref_reduce(Ref({100, 100}, v), {0}, false, ref_var(1, false)), kDouble,
                    Tol{1e-9, 0}));
}

TEST_P(Reductions, VarRefusesIntegralInputs) {
  const at::Tensor x = at::ones({3}, options(kLong));
  EXPECT_THAT(errorOf([&] { at::var(x); }),
              HasSubstr("std and var only support floating point and complex dtypes"));
  EXPECT_THAT(errorOf([&] { at::std(x, {0}, c10::Scalar(1)); }),
              HasSubstr("std: std and var only support floating point"));
}

// ---- norms ----------------------------------------------------------------------------------------

TEST_P(Reductions, NormsForEveryOrder) {
  for (double p : {2.0, 1.0, 0.0, 3.0, 0.5, -1.0, kInf, -kInf}) {
    const bool has_identity = !(std::isinf(p) || p < 0);
    run({"norm p=" + std::to_string(p),
         [p](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
           return at::norm(x, c10::Scalar(p), d, k);
         }, ref_norm(p), floating_dtypes(), same_dtype, {}, false, has_identity,
         Tol{2e-3, 1e-5}}, device());
  }
  // Half and BFloat16 results round once; the tolerance above is Half's.
}

TEST_P(Reductions, NormOverloadsAndDtype) {
  const Ref r({2, 2}, {3, -4, 0, 12});
  const at::Tensor x = make_tensor(r, kFloat, device());
  EXPECT_TRUE(close(at::norm(x), Ref({}, {13}), kFloat));          // p = 2, all dims
  EXPECT_TRUE(close(x.norm(1), Ref({}, {19}), kFloat));
  EXPECT_TRUE(close(at::norm(x, std::nullopt, {1}, true), Ref({2, 1}, {5, 12}), kFloat));
  const at::Tensor d = at::norm(x, c10::Scalar(kInf), {0}, false, at::kDouble);
  EXPECT_TRUE(close(d, Ref({2}, {3, 12}), kDouble));
  EXPECT_TRUE(close(at::norm(x, std::optional<c10::Scalar>(0), at::kDouble), Ref({}, {3}),
                    kDouble));
  EXPECT_TRUE(close(at::frobenius_norm(x, {0, 1}), Ref({}, {13}), kFloat));
  EXPECT_TRUE(close(at::linalg_vector_norm(x, 1, {{0}}), Ref({2}, {3, 16}), kFloat));
  EXPECT_TRUE(close(at::linalg_vector_norm(x, 2, std::nullopt, false, at::kDouble),
                    Ref({}, {13}), kDouble));
  at::Tensor out = at::empty({0}, options(kFloat));
  at::norm_out(out, x, 2, {1});
  EXPECT_TRUE(close(out, Ref({2}, {5, 12}), kFloat));
  // The 2-norm of a transposed (non-contiguous) input over either dim.
  EXPECT_TRUE(close(at::norm(x.t(), 2, {0}), Ref({2}, {5, 12}), kFloat));
}

TEST_P(Reductions, NormErrors) {
  const at::Tensor ints = at::ones({3}, options(kLong));
  EXPECT_THAT(errorOf([&] { at::norm(ints); }),
              HasSubstr("norm: Expected a floating point or complex tensor as input. Got Long"));
  const at::Tensor empty = at::empty({0, 2}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::norm(empty, kInf, {0}); }),
              HasSubstr("cannot compute the inf norm on an empty tensor"));
  EXPECT_TRUE(close(at::norm(empty, 2, {0}), Ref({2}, {0, 0}), kFloat));
  const at::Tensor x = at::ones({3}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::norm(x, 2, {0}, false, at::kLong); }),
              HasSubstr("dtype should be floating point or complex. Got Long"));
}

// ---- logsumexp ------------------------------------------------------------------------------------

TEST_P(Reductions, LogSumExpOverDimLists) {
  run({"logsumexp", [](const at::Tensor& x, const std::vector<int64_t>& d, bool k) {
         return at::logsumexp(x, d, k);
       }, ref_logsumexp, all_dtypes(), to_float}, device());
}

TEST_P(Reductions, LogSumExpIsStable) {
  const at::Tensor big = make_tensor(Ref({2, 2}, {1000, 1000, -1000, -1001}), kFloat, device());
  const double l2 = std::log(2.0);
  EXPECT_TRUE(close(at::logsumexp(big, {1}),
                    Ref({2}, {1000 + l2, -1000 + std::log1p(std::exp(-1.0))}), kFloat));
  const at::Tensor infs =
      make_tensor(Ref({3, 2}, {-kInf, -kInf, kInf, 1, kNaN, 1}), kDouble, device());
  EXPECT_TRUE(close(at::logsumexp(infs, {1}), Ref({3}, {-kInf, kInf, kNaN}), kDouble));
  // Over nothing: log(0).
  EXPECT_TRUE(close(at::logsumexp(at::empty({0, 2}, options(kFloat)), {0}),
                    Ref({2}, {-kInf, -kInf}), kFloat));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::logsumexp_out(out, big, {0}, true);
  EXPECT_TRUE(close(out, Ref({1, 2}, {1000, 1000}), kDouble));
  at::Tensor ints = at::empty({0}, options(kInt));
  EXPECT_THAT(errorOf([&] { at::logsumexp_out(ints, big, {0}); }),
              HasSubstr("Expected floating point type for result tensor, but got: Int"));
}

// ---- all and any ----------------------------------------------------------------------------------

TEST_P(Reductions, AllAndAnyOverDims) {
  auto to_logical = [](ScalarType t) { return t == kByte ? kByte : kBool; };
  auto ref_all = [](const std::vector<double>& v) {
    return static_cast<double>(std::all_of(v.begin(), v.end(), [](double x) { return x != 0; }));
  };
  auto ref_any = [](const std::vector<double>& v) {
    return static_cast<double>(std::any_of(v.begin(), v.end(), [](double x) { return x != 0; }));
  };
  const Domain d{-1, 1};  // plenty of zeros in integral dtypes
  run({"all.dims", [](const at::Tensor& x, const std::vector<int64_t>& dims, bool k) {
         return at::all(x, dims, k);
       }, ref_all, all_dtypes(), to_logical, d}, device());
  run({"any.dims", [](const at::Tensor& x, const std::vector<int64_t>& dims, bool k) {
         return at::any(x, dims, k);
       }, ref_any, all_dtypes(), to_logical, d}, device());
  run({"all.dim", [](const at::Tensor& x, const std::vector<int64_t>& dims, bool k) {
         return x.all(dims[0], k);
       }, ref_all, all_dtypes(), to_logical, d, true}, device());
  run({"any.dim", [](const at::Tensor& x, const std::vector<int64_t>& dims, bool k) {
         return at::any(x, dims[0], k);
       }, ref_any, all_dtypes(), to_logical, d, true}, device());
}

TEST_P(Reductions, AllAndAnyOfEverything) {
  const at::Tensor x = make_tensor(Ref({2, 2}, {1, 0, 2, 3}), kInt, device());
  EXPECT_TRUE(close(at::all(x), Ref({}, {0}), kBool));
  EXPECT_TRUE(close(x.any(), Ref({}, {1}), kBool));
  EXPECT_TRUE(close(at::all(at::empty({0}, options(kFloat))), Ref({}, {1}), kBool));
  EXPECT_TRUE(close(at::any(at::empty({0}, options(kFloat))), Ref({}, {0}), kBool));
  EXPECT_TRUE(close(at::all(make_tensor(Ref({2}, {1, 2}), kByte, device())), Ref({}, {1}),
                    kByte));
  EXPECT_TRUE(close(at::any(make_tensor(Ref({1}, {kNaN}), kFloat, device())), Ref({}, {1}),
                    kBool));
  at::Tensor out = at::empty({0}, options(kBool));
  at::all_out(out, x, 1);
  EXPECT_TRUE(close(out, Ref({2}, {0, 1}), kBool));
  at::any_out(out, x);
  EXPECT_TRUE(close(out, Ref({}, {1}), kBool));
  at::Tensor bad = at::empty({0}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::all_out(bad, x); }),
              HasSubstr("all: the out tensor must be Bool or Byte (uint8), got Float"));
  // Large inputs take the parallel, blocked path.
  at::Tensor many = at::ones({100000}, options(kFloat));
  EXPECT_TRUE(at::all(many).item<bool>());
  many.slice(0, 99999).zero_();
  EXPECT_FALSE(at::all(many).item<bool>());
  EXPECT_TRUE(at::any(many).item<bool>());
}

// ---- max and min over everything -------------------------------------------------------------------

TEST_P(Reductions, MaxAndMinOfEverything) {
  auto ref_max = [](const std::vector<double>& v) {
    double m = -kInf;
    for (double x : v) m = (std::isnan(x) || x > m) ? x : m;
    return m;
  };
  auto ref_min = [](const std::vector<double>& v) {
    double m = kInf;
    for (double x : v) m = (std::isnan(x) || x < m) ? x : m;
    return m;
  };
  ReduceCheck max{"max()", [](const at::Tensor& x, const std::vector<int64_t>&, bool) {
                    return at::max(x);
                  }, ref_max, all_dtypes()};
  max.empty_ok = false;
  max.everything = true;
  run(max, device());
  ReduceCheck min{"min()", [](const at::Tensor& x, const std::vector<int64_t>&, bool) {
                    return x.min();
                  }, ref_min, all_dtypes()};
  min.empty_ok = false;
  min.everything = true;
  run(min, device());
}

TEST_P(Reductions, MaxAndMinValuesNaNAndErrors) {
  const at::Tensor x = make_tensor(Ref({2, 3}, {1, 7, -3, 4, 2, 6}), kFloat, device());
  EXPECT_TRUE(close(at::max(x), Ref({}, {7}), kFloat));
  EXPECT_TRUE(close(at::min(x.t()), Ref({}, {-3}), kFloat));
  const at::Tensor n = make_tensor(Ref({3}, {1, kNaN, 2}), kFloat, device());
  EXPECT_TRUE(std::isnan(at::max(n).item<double>()));
  at::Tensor out = at::empty({0}, options(kFloat));
  at::max_out(out, x);
  EXPECT_TRUE(close(out, Ref({}, {7}), kFloat));
  at::min_out(out, x);
  EXPECT_TRUE(close(out, Ref({}, {-3}), kFloat));
  EXPECT_THAT(errorOf([&] { at::max(at::empty({0, 2}, options(kFloat))); }),
              HasSubstr("max(): Expected reduction dim to be specified for input.numel() == 0"));
}

// ---- dims: errors and accuracy ---------------------------------------------------------------------

TEST_P(Reductions, DimErrorsNameTheOpAndTheDim) {
  const at::Tensor x = at::ones({2, 3}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::sum(x, {0, -2}); }),
              HasSubstr("sum: dim 0 appears multiple times in the list of dims"));
  EXPECT_THAT(errorOf([&] { at::var(x, {1, 1}); }),
              HasSubstr("var: dim 1 appears multiple times"));
  EXPECT_THAT(errorOf([&] { at::norm(x, 2, {0, 0}); }),
              HasSubstr("norm: dim 0 appears multiple times"));
  EXPECT_THAT(errorOf([&] { at::logsumexp(x, {1, -1}); }),
              HasSubstr("logsumexp: dim 1 appears multiple times"));
  EXPECT_THAT(errorOf([&] { at::all(x, {0, 0}, false); }),
              HasSubstr("all: dim 0 appears multiple times"));
  EXPECT_THAT(errorOf([&] { at::prod(x, 2); }),
              HasSubstr("prod: dimension 2 is out of range for a 2-d tensor; expected a "
                        "dimension in [-2, 1]"));
  EXPECT_THAT(errorOf([&] { at::std(x, at::IntArrayRef{-3}); }),
              HasSubstr("std: dimension -3 is out of range for a 2-d tensor"));
  EXPECT_THAT(errorOf([&] { at::any(x, 5); }), HasSubstr("any: dimension 5 is out of range"));
  EXPECT_THAT(errorOf([&] { at::cumsum(x, -3); }),
              HasSubstr("cumsum: dimension -3 is out of range"));
  EXPECT_THAT(errorOf([&] { at::mean(x, {7}); }), HasSubstr("mean: dimension 7 is out of range"));
  const at::Tensor scalar = at::ones({}, options(kFloat));
  EXPECT_TRUE(close(at::sum(scalar, {-1}), Ref({}, {1}), kFloat));
  EXPECT_THAT(errorOf([&] { at::sum(scalar, {1}); }),
              HasSubstr("expected a dimension in [-1, 0]"));
}

TEST_P(Reductions, LargeStridedReductionsMatchTheReference) {
  // Big enough for two threads and the blocked outer loop, with a slice.
  const Ref r = random_ref({300, 257}, kFloat, {}, 5);
  const at::Tensor x = make_tensor(r, kFloat, device());
  for (int64_t d : {0, 1}) {
    SCOPED_TRACE("dim " + std::to_string(d));
    EXPECT_TRUE(close(at::sum(x, {d}), ref_reduce(r, {d}, false, ref_sum), kFloat,
                      Tol{1e-5, 1e-5}));
    EXPECT_TRUE(close(at::var(x, at::IntArrayRef{d}), ref_reduce(r, {d}, false, ref_var(1, false)), kFloat,
                      Tol{1e-5, 1e-6}));
    EXPECT_TRUE(close(at::norm(x, 2, {d}), ref_reduce(r, {d}, false, ref_norm(2)), kFloat));
    EXPECT_TRUE(close(at::logsumexp(x, {d}), ref_reduce(r, {d}, false, ref_logsumexp),
                      kFloat));
  }
}

}  // namespace
}  // namespace ember_conformance
