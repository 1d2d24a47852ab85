// Conformance: cat and stack against hand-written references, for every
// dtype, mixed dtypes (promotion), the layouts of conformance.h, negative
// dims, zero-size and legacy empty inputs, and out=.
#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Join : public OpTest {
 protected:
  at::Tensor T(std::vector<int64_t> shape, std::vector<double> v,
               ScalarType dtype = kFloat) const {
    return make_tensor(Ref(std::move(shape), std::move(v)), dtype, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(Join);

constexpr Tol kExact{0, 0};

// The references joined along dim (all the same rank).
Ref cat_ref(const std::vector<Ref>& parts, int64_t dim) {
  Ref out;
  out.shape = parts[0].shape;
  out.shape[static_cast<size_t>(dim)] = 0;
  for (const Ref& p : parts) out.shape[static_cast<size_t>(dim)] += p.shape[static_cast<size_t>(dim)];
  out.v.resize(static_cast<size_t>(numel_of(out.shape)));
  int64_t offset = 0;
  for (const Ref& p : parts) {
    for (int64_t k = 0; k < p.numel(); ++k) {
      auto i = unravel(k, p.shape);
      const double x = p.v[static_cast<size_t>(k)];
      i[static_cast<size_t>(dim)] += offset;
      out.at(i) = x;
    }
    offset += p.shape[static_cast<size_t>(dim)];
  }
  return out;
}

TEST_P(Join, CatEveryDtypeLayoutAndDim) {
  for (ScalarType dtype : all_dtypes()) {
    for (int64_t dim = -3; dim < 3; ++dim) {
      const int64_t d = dim < 0 ? dim + 3 : dim;
      std::vector<int64_t> sa = {2, 3, 4}, sb = {2, 3, 4};
      sb[static_cast<size_t>(d)] = 1;
      const auto as = layouts(sa, dtype, device(), {}, 201);
      const auto bs = layouts(sb, dtype, device(), {}, 202);
      for (const Case& a : as) {
        for (const Case& b : bs) {
          SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + a.name + " + " + b.name +
                       " dim " + std::to_string(dim));
          const Ref expect = cat_ref({a.ref, b.ref, a.ref}, d);
          EXPECT_TRUE(close(at::cat({a.tensor, b.tensor, a.tensor}, dim), expect, dtype, kExact));
          at::Tensor out = at::empty({0}, options(dtype));
          at::cat_out(out, {a.tensor, b.tensor, a.tensor}, dim);
          EXPECT_TRUE(close(out, expect, dtype, kExact));
        }
      }
    }
  }
}

TEST_P(Join, CatPromotesAcrossInputs) {
  const std::vector<std::pair<ScalarType, ScalarType>> pairs = {
      {kInt, kFloat}, {kBool, kByte}, {kByte, kChar}, {kHalf, kBFloat16},
      {kLong, kDouble}, {kBool, kHalf}, {kFloat, kDouble}};
  for (const auto& [ta, tb] : pairs) {
    SCOPED_TRACE(std::string(c10::toString(ta)) + " + " + std::string(c10::toString(tb)));
    const Ref a = random_ref({2, 2}, ta, {}, 211);
    const Ref b = random_ref({1, 2}, tb, {}, 212);
    const ScalarType rt = result_type(ta, 2, tb, 2);
    const at::Tensor out = at::cat({make_tensor(a, ta, device()), make_tensor(b, tb, device())});
    EXPECT_EQ(out.scalar_type(), rt);
    EXPECT_TRUE(close(out, as_dtype(cat_ref({a, b}, 0), rt), rt, kExact));
  }
  // An out= of a wider dtype is written converted; a narrower one is refused.
  at::Tensor wide = at::empty({0}, options(kDouble));
  at::cat_out(wide, {T({1}, {1}, kInt), T({1}, {2.5})});
  EXPECT_TRUE(close(wide, Ref({2}, {1, 2.5}), kDouble, kExact));
  at::Tensor narrow = at::empty({0}, options(kLong));
  EXPECT_THAT(errorOf([&] { at::cat_out(narrow, {T({1}, {1}, kInt), T({1}, {2.5})}); }),
              HasSubstr("input types can't be cast to the desired output type Long"));
}

TEST_P(Join, CatEmptyAndZeroSizeInputs) {
  const at::Tensor a = T({2, 2}, {1, 2, 3, 4});
  // Legacy: 1-d empty tensors are skipped whatever the others' rank, but
  // still count for the dtype.
  EXPECT_TRUE(close(at::cat({T({0}, {}), a, T({0}, {})}, 1), Ref({2, 2}, {1, 2, 3, 4}), kFloat,
                    kExact));
  const at::Tensor mixed = at::cat({T({0}, {}, kDouble), a});
  EXPECT_EQ(mixed.scalar_type(), kDouble);
  EXPECT_TRUE(close(at::cat({T({0}, {}), T({0}, {})}), Ref({0}, {}), kFloat, kExact));
  // Zero-size along the cat dim or another dim.
  EXPECT_TRUE(close(at::cat({T({0, 2}, {}), a, T({0, 2}, {})}), Ref({2, 2}, {1, 2, 3, 4}),
                    kFloat, kExact));
  EXPECT_TRUE(close(at::cat({T({0, 2}, {}), T({0, 3}, {})}, -1), Ref({0, 5}, {}), kFloat,
                    kExact));
  // A single input and an expanded input.
  EXPECT_TRUE(close(at::cat({a}), Ref({2, 2}, {1, 2, 3, 4}), kFloat, kExact));
  EXPECT_TRUE(close(at::cat({T({1, 2}, {5, 6}).expand({2, 2}), a}, 1),
                    Ref({2, 4}, {5, 6, 1, 2, 5, 6, 3, 4}), kFloat, kExact));
  // Large inputs: a memcpy per input on dim 0, the parallel copy on dim 1.
  const Ref big = random_ref({300, 200}, kFloat, {}, 5);
  const at::Tensor bt = make_tensor(big, kFloat, device());
  EXPECT_TRUE(close(at::cat({bt, bt}, 0), cat_ref({big, big}, 0), kFloat, kExact));
  EXPECT_TRUE(close(at::cat({bt, bt}, 1), cat_ref({big, big}, 1), kFloat, kExact));
}

TEST_P(Join, CatErrors) {
  const at::Tensor a = T({2, 2}, {1, 2, 3, 4});
  // With no tensor there is no backend to run: the dispatcher says so. An
  // out= tensor picks the CPU, whose kernel gives PyTorch's message.
  EXPECT_THAT(errorOf([&] { at::cat(std::vector<at::Tensor>{}); }),
              HasSubstr("no defined tensor argument to pick a backend from"));
  at::Tensor empty_out = at::empty({0}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::cat_out(empty_out, std::vector<at::Tensor>{}); }),
              HasSubstr("torch.cat(): expected a non-empty list of Tensors"));
  EXPECT_THAT(errorOf([&] { at::cat({a, T({}, {1})}); }),
              HasSubstr("zero-dimensional tensor (at position 1) cannot be concatenated"));
  EXPECT_THAT(errorOf([&] { at::cat({a, T({2}, {1, 2})}); }),
              HasSubstr("Tensors must have same number of dimensions: got 2"));
  EXPECT_THAT(errorOf([&] { at::cat({a, T({2, 3}, {1, 2, 3, 4, 5, 6})}, 0); }),
              HasSubstr("Sizes of tensors must match except in dimension 0. Expected size 2 "
                        "but got size 3 for tensor number 1 in the list"));
  EXPECT_THAT(errorOf([&] { at::cat({a, a}, 2); }), HasSubstr("dimension 2 is out of range"));
  at::Tensor out = T({8}, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_THAT(errorOf([&] { at::cat_out(out, {a, out.slice(0, 0, 4).view({2, 2})}); }),
              HasSubstr("the input tensors cannot refer to any of the output memory locations"));
}

TEST_P(Join, StackEveryDtypeAndDim) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& a : layouts({2, 3}, dtype, device(), {}, 221)) {
      const Ref b = random_ref({2, 3}, dtype, {}, 222);
      const at::Tensor bt = make_tensor(b, dtype, device());
      for (int64_t dim = -3; dim < 3; ++dim) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + a.name + " dim " +
                     std::to_string(dim));
        auto unsq = [d](Ref r) {
          r.shape.insert(r.shape.begin() + d, 1);
          return r;
        };
        const Ref expect = cat_ref({unsq(a.ref), unsq(b)}, d);
        EXPECT_TRUE(close(at::stack({a.tensor, bt}, dim), expect, dtype, kExact));
        at::Tensor out = at::empty({0}, options(dtype));
        at::stack_out(out, {a.tensor, bt}, dim);
        EXPECT_TRUE(close(out, expect, dtype, kExact));
      }
    }
  }
  // 0-d inputs stack into a 1-d tensor; zero-size inputs stack too.
  EXPECT_TRUE(close(at::stack({T({}, {1}), T({}, {2})}), Ref({2}, {1, 2}), kFloat, kExact));
  EXPECT_TRUE(close(at::stack({T({0}, {}), T({0}, {})}, 1), Ref({0, 2}, {}), kFloat, kExact));
  EXPECT_THAT(errorOf([&] { at::stack(std::vector<at::Tensor>{}); }),
              HasSubstr("stack expects a non-empty TensorList"));
  EXPECT_THAT(errorOf([&] { at::stack({T({2}, {1, 2}), T({3}, {1, 2, 3})}); }),
              HasSubstr("stack expects each tensor to be equal size, but got [2] at entry 0 "
                        "and [3] at entry 1"));
  EXPECT_THAT(errorOf([&] { at::stack({T({2}, {1, 2})}, 2); }),
              HasSubstr("dimension 2 is out of range"));
}

}  // namespace
}  // namespace ember_conformance
