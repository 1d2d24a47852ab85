// Conformance: cumsum (functional, in-place, out=) against a running-sum
// reference along every dim of every layout and dtype.
#include <string>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Cumsum : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Cumsum);

// The running sum of r along dim d (wrapped), each step rounded to `acc`
// as an accumulator of that dtype would hold it (integers wrap).
Ref ref_cumsum(const Ref& r, int64_t d, ScalarType acc) {
  Ref out = r;
  if (r.dim() == 0) return as_dtype(out, acc);
  const int64_t dim = d < 0 ? d + r.dim() : d;
  for (int64_t i = 0; i < r.numel(); ++i) {
    std::vector<int64_t> idx = unravel(i, r.shape);
    if (idx[static_cast<size_t>(dim)] == 0) {
      out.at(idx) = as_dtype(r.at(idx), acc);
      continue;
    }
    std::vector<int64_t> prev = idx;
    --prev[static_cast<size_t>(dim)];
    out.at(idx) = as_dtype(out.at(prev) + r.at(idx), acc);
  }
  return out;
}

ScalarType sum_type(ScalarType t) { return c10::isIntegralType(t, true) ? kLong : t; }

TEST_P(Cumsum, AlongEveryDimOfEveryLayout) {
  uint64_t seed = 3;
  for (ScalarType dtype : all_dtypes()) {
    const ScalarType out_dtype = sum_type(dtype);
    for (const auto& shape : test_shapes()) {
      for (const Case& c : layouts(shape, dtype, device(), {}, seed++)) {
        const int64_t nd = std::max<int64_t>(static_cast<int64_t>(shape.size()), 1);
        for (int64_t d = -nd; d < nd; ++d) {
          SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " dim " + std::to_string(d));
          const at::Tensor out = at::cumsum(c.tensor, d);
          // Half/BFloat16 accumulate in float: the reference keeps doubles
          // and rounds once.
          const bool reduced = dtype == kHalf || dtype == kBFloat16;
          const Ref expected = as_dtype(
              ref_cumsum(c.ref, d, reduced ? kDouble : (out_dtype == kLong ? kLong : kDouble)),
              out_dtype);
          EXPECT_TRUE(close(out, expected, out_dtype));
          EXPECT_TRUE(close(c.tensor, c.ref, dtype, Tol{0, 0})) << "the input changed";
        }
      }
    }
  }
}

TEST_P(Cumsum, DtypeInPlaceAndOut) {
  const Ref r({2, 3}, {1, 2, 3, 4, 5, 6});
  const at::Tensor x = make_tensor(r, kInt, device());
  const at::Tensor f = at::cumsum(x, 1, at::kFloat);
  EXPECT_TRUE(close(f, Ref({2, 3}, {1, 3, 6, 4, 9, 15}), kFloat));
  EXPECT_TRUE(close(x.cumsum(0), Ref({2, 3}, {1, 2, 3, 5, 7, 9}), kLong));
  // In place keeps self's dtype and storage.
  at::Tensor y = make_tensor(r, kInt, device());
  const void* data = y.data_ptr();
  y.cumsum_(-1);
  EXPECT_EQ(y.data_ptr(), data);
  EXPECT_TRUE(close(y, Ref({2, 3}, {1, 3, 6, 4, 9, 15}), kInt));
  // In place on a transposed view writes through it.
  at::Tensor z = make_tensor(r, kDouble, device());
  z.t().cumsum_(0);
  EXPECT_TRUE(close(z, Ref({2, 3}, {1, 3, 6, 4, 9, 15}), kDouble));
  EXPECT_THAT(errorOf([&] { y.cumsum_(0, at::kLong); }),
              HasSubstr("cumsum_: the dtype argument (Long) must match the dtype of the "
                        "result tensor (Int)"));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::cumsum_out(out, x, 0);
  EXPECT_TRUE(close(out, Ref({2, 3}, {1, 2, 3, 5, 7, 9}), kDouble));
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] { at::cumsum_out(undefined, x, 0); }),
              HasSubstr("cumsum: the out tensor is undefined"));
  EXPECT_THAT(errorOf([&] { at::cumsum(x, 2); }),
              HasSubstr("cumsum: dimension 2 is out of range for a 2-d tensor"));
}

TEST_P(Cumsum, ZeroDimZeroSizeAndWrapping) {
  const at::Tensor s = make_tensor(Ref({}, {5}), kByte, device());
  EXPECT_TRUE(close(at::cumsum(s, 0), Ref({}, {5}), kLong));
  EXPECT_TRUE(close(at::cumsum(s, -1, at::kByte), Ref({}, {5}), kByte));
  EXPECT_TRUE(close(at::cumsum(at::empty({0, 4}, options(kFloat)), 1), Ref({0, 4}, {}), kFloat));
  // uint8 with dtype=uint8 wraps, as PyTorch's.
  const at::Tensor b = make_tensor(Ref({3}, {200, 100, 1}), kByte, device());
  EXPECT_TRUE(close(at::cumsum(b, 0, at::kByte), Ref({3}, {200, 44, 45}), kByte));
  EXPECT_TRUE(close(at::cumsum(b, 0), Ref({3}, {200, 300, 301}), kLong));
  // Bool counts.
  const at::Tensor flags = make_tensor(Ref({4}, {1, 0, 1, 1}), kBool, device());
  EXPECT_TRUE(close(at::cumsum(flags, 0), Ref({4}, {1, 1, 2, 3}), kLong));
}

TEST_P(Cumsum, LargeInputsUseTheBlockedParallelPath) {
  const Ref r = random_ref({513, 300}, kDouble, {}, 9);
  const at::Tensor x = make_tensor(r, kDouble, device());
  for (int64_t d : {0, 1}) {
    SCOPED_TRACE("dim " + std::to_string(d));
    EXPECT_TRUE(close(at::cumsum(x, d), ref_cumsum(r, d, kDouble), kDouble, Tol{1e-12, 1e-10}));
    const at::Tensor t = x.t();
    Ref rt({300, 513}, std::vector<double>(r.v.size()));
    for (int64_t i = 0; i < 300; ++i) {
      for (int64_t j = 0; j < 513; ++j) rt.at({i, j}) = r.at({j, i});
    }
    EXPECT_TRUE(close(at::cumsum(t, d), ref_cumsum(rt, d, kDouble), kDouble, Tol{1e-12, 1e-10}));
  }
}

}  // namespace
}  // namespace ember_conformance
