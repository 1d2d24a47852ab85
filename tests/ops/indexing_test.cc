// Conformance: index_select, gather, scatter (src, value, reduce),
// scatter_add, masked_fill, masked_select and nonzero against hand-written
// references, for every dtype and the layouts of conformance.h.
#include <cmath>
#include <limits>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Indexing : public OpTest {
 protected:
  at::Tensor T(std::vector<int64_t> shape, std::vector<double> v,
               ScalarType dtype = kLong) const {
    return make_tensor(Ref(std::move(shape), std::move(v)), dtype, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(Indexing);

constexpr Tol kExact{0, 0};

// The position `i` with its entry at `dim` replaced by `v`.
std::vector<int64_t> with(std::vector<int64_t> i, int64_t dim, int64_t v) {
  if (!i.empty()) i[static_cast<size_t>(dim)] = v;
  return i;
}

// ---- index_select -----------------------------------------------------------------

Ref index_select_ref(const Ref& x, int64_t dim, const std::vector<int64_t>& idx) {
  Ref out;
  out.shape = x.shape;
  if (!x.shape.empty()) out.shape[static_cast<size_t>(dim)] = static_cast<int64_t>(idx.size());
  out.v.resize(static_cast<size_t>(numel_of(out.shape)));
  for (int64_t k = 0; k < out.numel(); ++k) {
    const auto i = unravel(k, out.shape);
    out.v[static_cast<size_t>(k)] =
        x.at(x.shape.empty() ? i : with(i, dim, idx[static_cast<size_t>(i[dim])]));
  }
  return out;
}

TEST_P(Indexing, IndexSelectEveryDtypeLayoutAndDim) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({3, 4, 5}, dtype, device(), {}, 11)) {
      for (int64_t dim = -3; dim < 3; ++dim) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        const int64_t size = c.ref.shape[static_cast<size_t>(d)];
        const std::vector<int64_t> idx = {size - 1, 0, size - 1, 1};  // repeats
        for (ScalarType it : {kLong, kInt}) {
          SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " dim " +
                       std::to_string(dim) + " " + std::string(c10::toString(it)));
          const at::Tensor index = T({4}, {double(idx[0]), double(idx[1]),
                                           double(idx[2]), double(idx[3])}, it);
          EXPECT_TRUE(close(at::index_select(c.tensor, dim, index),
                            index_select_ref(c.ref, d, idx), dtype, kExact));
          EXPECT_TRUE(close(c.tensor.index_select(dim, index),
                            index_select_ref(c.ref, d, idx), dtype, kExact));
        }
      }
    }
  }
}

TEST_P(Indexing, IndexSelectEdgeCases) {
  // 0-d input, 0-d index, empty index, zero-size input, non-contiguous index.
  const at::Tensor s = T({}, {7}, kFloat);
  EXPECT_TRUE(close(at::index_select(s, 0, T({}, {0})), Ref({}, {7}), kFloat, kExact));
  EXPECT_TRUE(close(at::index_select(s, -1, T({1}, {0})), Ref({}, {7}), kFloat, kExact));
  const at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kFloat);
  EXPECT_TRUE(close(at::index_select(x, 1, T({}, {2})), Ref({2, 1}, {2, 5}), kFloat, kExact));
  EXPECT_TRUE(close(at::index_select(x, 0, T({0}, {})), Ref({0, 3}, {}), kFloat, kExact));
  const at::Tensor z = T({0, 3}, {}, kFloat);
  EXPECT_TRUE(close(at::index_select(z, 1, T({2}, {2, 2})), Ref({0, 2}, {}), kFloat, kExact));
  const at::Tensor strided_index = T({4}, {1, 9, 0, 9}).slice(0, 0, 4, 2);  // [1, 0]
  EXPECT_TRUE(close(at::index_select(x, 0, strided_index), Ref({2, 3}, {3, 4, 5, 0, 1, 2}),
                    kFloat, kExact));
  // A large contiguous input takes the row-copy path, in parallel.
  const Ref big = random_ref({3000, 17}, kFloat, {}, 5);
  const at::Tensor b = make_tensor(big, kFloat, device());
  std::vector<int64_t> idx;
  std::vector<double> idxd;
  for (int64_t i = 0; i < 2500; ++i) {
    idx.push_back((i * 7919) % 3000);
    idxd.push_back(static_cast<double>(idx.back()));
  }
  EXPECT_TRUE(close(at::index_select(b, 0, T({2500}, idxd)), index_select_ref(big, 0, idx),
                    kFloat, kExact));
  // The same picks from the transposed view go through the strided path.
  const Ref picked = index_select_ref(big, 0, idx);
  Ref transposed({17, 2500}, std::vector<double>(picked.v.size()));
  for (int64_t i = 0; i < 2500; ++i) {
    for (int64_t j = 0; j < 17; ++j) transposed.at({j, i}) = picked.at({i, j});
  }
  EXPECT_TRUE(close(at::index_select(b.t(), 1, T({2500}, idxd)), transposed, kFloat, kExact));
}

TEST_P(Indexing, IndexSelectOutAndErrors) {
  const at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kShort);
  at::Tensor out = T({0}, {}, kShort);
  at::index_select_out(out, x, 1, T({2}, {2, 0}));
  EXPECT_TRUE(close(out, Ref({2, 2}, {2, 0, 5, 3}), kShort, kExact));
  // A non-contiguous out of the right shape is written through its strides.
  at::Tensor tout = T({2, 2}, {0, 0, 0, 0}, kShort).t();
  at::index_select_out(tout, x, 1, T({2}, {2, 0}));
  EXPECT_TRUE(close(tout, Ref({2, 2}, {2, 0, 5, 3}), kShort, kExact));

  EXPECT_THAT(errorOf([&] { at::index_select(x, 1, T({2}, {0, 3})); }),
              HasSubstr("index 3 is out of bounds for dimension 1 with size 3"));
  EXPECT_THAT(errorOf([&] { at::index_select(x, 0, T({1}, {-1})); }),
              HasSubstr("index -1 is out of bounds for dimension 0 with size 2"));
  EXPECT_THAT(errorOf([&] { at::index_select(x, 0, T({1}, {0}, kFloat)); }),
              HasSubstr("Expected dtype int32 or int64 for index, but got Float"));
  EXPECT_THAT(errorOf([&] { at::index_select(x, 0, T({1, 1}, {0})); }),
              HasSubstr("Index is supposed to be a vector, but got an index of shape [1, 1]"));
  EXPECT_THAT(errorOf([&] { at::index_select(x, 2, T({1}, {0})); }),
              HasSubstr("dimension 2 is out of range"));
  EXPECT_THAT(errorOf([&] { at::index_select(T({0, 3}, {}, kFloat), 0, T({1}, {0})); }),
              HasSubstr("index 0 is out of bounds for dimension 0 with size 0"));
  at::Tensor bad = T({1}, {0}, kInt);
  EXPECT_THAT(errorOf([&] { at::index_select_out(bad, x, 0, T({1}, {0})); }),
              HasSubstr("expected out tensor to have dtype Short, but got Int"));
}

// ---- gather -------------------------------------------------------------------------

Ref gather_ref(const Ref& x, int64_t dim, const Ref& index) {
  Ref out;
  out.shape = index.shape;
  out.v.resize(index.v.size());
  for (int64_t k = 0; k < index.numel(); ++k) {
    const auto i = unravel(k, index.shape);
    out.v[static_cast<size_t>(k)] =
        x.at(with(i, dim, static_cast<int64_t>(index.v[static_cast<size_t>(k)])));
  }
  return out;
}

TEST_P(Indexing, GatherEveryDtypeLayoutAndDim) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({3, 4, 5}, dtype, device(), {}, 21)) {
      for (int64_t dim = -3; dim < 3; ++dim) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        // An index smaller than self in the other dims, with repeats.
        const std::vector<int64_t> ishape = {2, 3, 4};
        Ref index = random_ref(ishape, kLong, {0, double(c.ref.shape[d]) - 0.01}, 3);
        for (double& v : index.v) v = std::floor(std::fabs(v));
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " dim " + std::to_string(dim));
        const at::Tensor it = make_tensor(index, kLong, device());
        EXPECT_TRUE(close(at::gather(c.tensor, dim, it), gather_ref(c.ref, d, index), dtype,
                          kExact));
        // A transposed index.
        const at::Tensor itt = it.transpose(0, 2).contiguous().transpose(0, 2);
        EXPECT_TRUE(close(c.tensor.gather(dim, itt), gather_ref(c.ref, d, index), dtype,
                          kExact));
      }
    }
  }
}

TEST_P(Indexing, GatherEdgeCasesOutAndErrors) {
  const at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kDouble);
  // Index larger than self along dim is fine; 0-d; empty; expanded index.
  EXPECT_TRUE(close(at::gather(x, 1, T({1, 5}, {0, 2, 2, 1, 0})),
                    Ref({1, 5}, {0, 2, 2, 1, 0}), kDouble, kExact));
  EXPECT_TRUE(close(at::gather(T({}, {4}, kDouble), 0, T({}, {0})), Ref({}, {4}), kDouble,
                    kExact));
  EXPECT_TRUE(close(at::gather(x, 0, T({0, 3}, {})), Ref({0, 3}, {}), kDouble, kExact));
  EXPECT_TRUE(close(at::gather(x, 0, T({1, 1}, {1}).expand({2, 3})),
                    Ref({2, 3}, {3, 4, 5, 3, 4, 5}), kDouble, kExact));
  at::Tensor out = T({6}, {0, 0, 0, 0, 0, 0}, kDouble);
  at::gather_out(out, x, 1, T({2, 1}, {2, 0}));
  EXPECT_TRUE(close(out, Ref({2, 1}, {2, 3}), kDouble, kExact));

  EXPECT_THAT(errorOf([&] { at::gather(x, 1, T({2, 1}, {0, 3})); }),
              HasSubstr("gather: index 3 is out of bounds for dimension 1 with size 3"));
  EXPECT_THAT(errorOf([&] { at::gather(x, 1, T({2, 1}, {0, -1})); }),
              HasSubstr("index -1 is out of bounds for dimension 1 with size 3"));
  EXPECT_THAT(errorOf([&] { at::gather(x, 1, T({2, 1}, {0, 1}, kInt)); }),
              HasSubstr("gather(): Expected dtype int64 for index, but got Int"));
  EXPECT_THAT(errorOf([&] { at::gather(x, 1, T({2}, {0, 1})); }),
              HasSubstr("Index tensor must have the same number of dimensions as input"));
  EXPECT_THAT(errorOf([&] { at::gather(x, 1, T({3, 1}, {0, 1, 1})); }),
              HasSubstr("Expected index [3, 1] to be smaller than self [2, 3] apart from "
                        "dimension 1"));
  EXPECT_THAT(errorOf([&] { at::gather(x, -3, T({2, 1}, {0, 1})); }),
              HasSubstr("dimension -3 is out of range"));
}

// ---- scatter ------------------------------------------------------------------------

// self with src (or value) combined in at index's positions, in index order.
Ref scatter_ref(Ref self, int64_t dim, const Ref& index, const Ref* src, double value,
                const std::function<double(double, double)>& f) {
  for (int64_t k = 0; k < index.numel(); ++k) {
    const auto i = unravel(k, index.shape);
    const auto pos = with(i, dim, static_cast<int64_t>(index.v[static_cast<size_t>(k)]));
    self.at(pos) = f(self.at(pos), src != nullptr ? src->at(i) : value);
  }
  return self;
}

// An index of `shape` whose values along `dim` are distinct positions in
// [0, size) (so plain scatter has one writer per element).
Ref distinct_index(const std::vector<int64_t>& shape, int64_t dim, int64_t size,
                   int64_t shift) {
  Ref r(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  for (int64_t k = 0; k < r.numel(); ++k) {
    const auto i = unravel(k, shape);
    r.v[static_cast<size_t>(k)] = static_cast<double>((i[dim] * 2 + shift + k / 7) % size);
  }
  // Make positions distinct along dim: i[dim] * 2 + c mod size is distinct
  // when 2 * shape[dim] <= size; otherwise use i[dim] itself.
  if (shape[dim] * 2 > size) {
    for (int64_t k = 0; k < r.numel(); ++k) {
      r.v[static_cast<size_t>(k)] = static_cast<double>(unravel(k, shape)[dim]);
    }
  }
  return r;
}

TEST_P(Indexing, ScatterSrcAndValueEveryDtypeAndLayout) {
  const auto assign = [](double, double b) { return b; };
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({4, 5, 6}, dtype, device(), {}, 31)) {
      for (int64_t dim : {0, 1, -1}) {
        const int64_t d = dim < 0 ? dim + 3 : dim;
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " dim " + std::to_string(dim));
        const Ref index = distinct_index({2, 2, 3}, d, c.ref.shape[d], 1);
        const at::Tensor it = make_tensor(index, kLong, device());
        const Ref src = random_ref({3, 3, 4}, dtype, {}, 41);  // larger than index
        const at::Tensor st = make_tensor(src, dtype, device());
        const Ref expect = scatter_ref(c.ref, d, index, &src, 0, assign);
        EXPECT_TRUE(close(at::scatter(c.tensor, dim, it, st), expect, dtype, kExact));
        EXPECT_TRUE(close(c.tensor, c.ref, dtype, kExact)) << "out-of-place changed self";
        if (c.tensor.stride(0) != 0) {  // not the expanded layout
          at::Tensor self = c.tensor.clone();
          self.scatter_(dim, it, st);
          EXPECT_TRUE(close(self, expect, dtype, kExact));
        }
        at::Tensor out = at::empty({0}, options(dtype));
        at::scatter_out(out, c.tensor, dim, it, st);
        EXPECT_TRUE(close(out, expect, dtype, kExact));
        const double value = dtype == kBool ? 1 : 2;
        const Ref vexpect = scatter_ref(c.ref, d, index, nullptr, value, assign);
        EXPECT_TRUE(close(at::scatter(c.tensor, dim, it, value), vexpect, dtype, kExact));
        at::Tensor vout = at::empty({0}, options(dtype));
        at::scatter_out(vout, c.tensor, dim, it, value);
        EXPECT_TRUE(close(vout, vexpect, dtype, kExact));
      }
    }
  }
}

TEST_P(Indexing, ScatterAddAndReduceSumDuplicates) {
  const Ref self({3, 2}, {1, 2, 3, 4, 5, 6});
  const Ref index({4, 2}, {0, 1, 0, 1, 2, 0, 0, 0});  // repeats along dim 0
  const Ref src({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});
  for (ScalarType dtype : all_dtypes()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor s = make_tensor(self, dtype, device());
    const at::Tensor i = make_tensor(index, kLong, device());
    const at::Tensor x = make_tensor(src, dtype, device());
    const Ref rs = as_dtype(self, dtype);
    const Ref rx = as_dtype(src, dtype);
    auto add = [dtype](double a, double b) { return dtype == kBool ? double(a || b) : as_dtype(a + b, dtype); };
    auto mul = [dtype](double a, double b) { return dtype == kBool ? double(a && b) : as_dtype(a * b, dtype); };
    const Ref sum = scatter_ref(rs, 0, index, &rx, 0, add);
    EXPECT_TRUE(close(at::scatter_add(s, 0, i, x), sum, dtype, kExact));
    at::Tensor inplace = s.clone();
    inplace.scatter_add_(0, i, x);
    EXPECT_TRUE(close(inplace, sum, dtype, kExact));
    at::Tensor out = at::empty({3, 2}, options(dtype));
    at::scatter_add_out(out, s, 0, i, x);
    EXPECT_TRUE(close(out, sum, dtype, kExact));
    EXPECT_TRUE(close(at::scatter(s, 0, i, x, "add"), sum, dtype, kExact));
    const Ref prod = scatter_ref(rs, 0, index, &rx, 0, mul);
    EXPECT_TRUE(close(at::scatter(s, 0, i, x, "multiply"), prod, dtype, kExact));
    at::Tensor pin = s.clone();
    pin.scatter_(0, i, x, "multiply");
    EXPECT_TRUE(close(pin, prod, dtype, kExact));
    const Ref vsum = scatter_ref(rs, 0, index, nullptr, 1, add);
    EXPECT_TRUE(close(at::scatter(s, 0, i, 1, "add"), vsum, dtype, kExact));
    at::Tensor vout = at::empty({0}, options(dtype));
    at::scatter_out(vout, s, 0, i, 1, "add");
    EXPECT_TRUE(close(vout, vsum, dtype, kExact));
  }
}

TEST_P(Indexing, ScatterEdgeCasesAndErrors) {
  const at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kFloat);
  const at::Tensor src = T({2, 3}, {9, 9, 9, 9, 9, 9}, kFloat);
  // Empty index: nothing changes. 0-d self.
  EXPECT_TRUE(close(at::scatter(x, 0, T({0, 3}, {}), src), Ref({2, 3}, {0, 1, 2, 3, 4, 5}),
                    kFloat, kExact));
  EXPECT_TRUE(close(at::scatter(T({}, {1}, kFloat), 0, T({}, {0}), T({}, {5}, kFloat)),
                    Ref({}, {5}), kFloat, kExact));
  // A large scatter_add runs the outer dims in parallel.
  const Ref big = random_ref({4096, 16}, kDouble, {}, 9);
  Ref idx({4096, 16}, std::vector<double>(4096 * 16));
  for (int64_t k = 0; k < idx.numel(); ++k) idx.v[static_cast<size_t>(k)] = double((k * 31) % 5);
  const Ref expect = scatter_ref(Ref({4096, 5}, std::vector<double>(4096 * 5, 0.0)), 1, idx,
                                 &big, 0, [](double a, double b) { return a + b; });
  EXPECT_TRUE(close(at::scatter_add(at::zeros({4096, 5}, at::kDouble), 1,
                                    make_tensor(idx, kLong, device()),
                                    make_tensor(big, kDouble, device())),
                    expect, kDouble, Tol{1e-12, 1e-12}));

  EXPECT_THAT(errorOf([&] { at::scatter(x, 1, T({2, 1}, {0, 3}), src); }),
              HasSubstr("scatter: index 3 is out of bounds for dimension 1 with size 3"));
  EXPECT_THAT(errorOf([&] { at::scatter(x, 1, T({2, 1}, {0, 1}), T({2, 3}, {9, 9, 9, 9, 9, 9}, kDouble)); }),
              HasSubstr("Expected self.dtype to be equal to src.dtype"));
  EXPECT_THAT(errorOf([&] { at::scatter(x, 1, T({2, 1}, {0, 1}, kInt), src); }),
              HasSubstr("Expected dtype int64 for index, but got Int"));
  EXPECT_THAT(errorOf([&] { at::scatter(x, 1, T({2, 4}, {0, 1, 2, 0, 0, 1, 2, 0}), src); }),
              HasSubstr("Expected index [2, 4] to be smaller than self [2, 3] apart from "
                        "dimension 1 and to be smaller size than src [2, 3]"));
  EXPECT_THAT(errorOf([&] { at::scatter(x, 1, T({2}, {0, 1}), src); }),
              HasSubstr("Index tensor must have the same number of dimensions as self"));
  EXPECT_THAT(errorOf([&] { at::scatter(x, 1, T({2, 1}, {0, 1}), src, "max"); }),
              HasSubstr("reduce argument must be either add or multiply, but got 'max'"));
  EXPECT_THAT(errorOf([&] {
                at::Tensor e = T({1, 3}, {0, 0, 0}, kFloat).expand({2, 3});
                e.scatter_(1, T({2, 1}, {0, 1}), src);
              }),
              HasSubstr("more than one element of the written-to tensor refers to a "
                        "single memory location"));
}

// ---- masked_fill, masked_select, nonzero ------------------------------------------------

TEST_P(Indexing, MaskedFillEveryDtypeLayoutAndBroadcast) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({3, 4}, dtype, device(), {}, 51)) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name);
      const Ref mask = random_ref({4}, kBool, {}, 52);  // broadcast over rows
      const at::Tensor m = make_tensor(mask, kBool, device());
      const double value = dtype == kBool ? 1 : 2;
      Ref expect = c.ref;
      for (int64_t k = 0; k < expect.numel(); ++k) {
        if (mask.v[static_cast<size_t>(k % 4)] != 0) expect.v[static_cast<size_t>(k)] = as_dtype(value, dtype);
      }
      EXPECT_TRUE(close(at::masked_fill(c.tensor, m, value), expect, dtype, kExact));
      EXPECT_TRUE(close(c.tensor.masked_fill(m, make_tensor(Ref({}, {value}), kDouble, device())),
                        expect, dtype, kExact));
      if (c.tensor.stride(0) != 0) {
        at::Tensor self = c.tensor.clone();
        self.masked_fill_(m, value);
        EXPECT_TRUE(close(self, expect, dtype, kExact));
        at::Tensor self2 = c.tensor.clone();
        self2.masked_fill_(m, make_tensor(Ref({}, {value}), dtype, device()));
        EXPECT_TRUE(close(self2, expect, dtype, kExact));
      }
    }
  }
}

TEST_P(Indexing, MaskedFillShapesAndErrors) {
  // Out-of-place: self broadcasts against the mask.
  const at::Tensor row = T({3}, {1, 2, 3}, kInt);
  const at::Tensor mask = T({2, 1}, {1, 0}, kBool);
  EXPECT_TRUE(close(at::masked_fill(row, mask, 0), Ref({2, 3}, {0, 0, 0, 1, 2, 3}), kInt,
                    kExact));
  EXPECT_TRUE(close(at::masked_fill(T({}, {5}, kFloat), T({}, {1}, kBool), 1.5),
                    Ref({}, {1.5}), kFloat, kExact));
  EXPECT_TRUE(close(at::masked_fill(T({0, 2}, {}, kFloat), T({2}, {1, 1}, kBool), 1),
                    Ref({0, 2}, {}), kFloat, kExact));
  at::Tensor r = row.clone();
  EXPECT_THAT(errorOf([&] { r.masked_fill_(mask, 0); }),
              HasSubstr("mask of shape [2, 1] cannot be broadcast to shape [3]"));
  EXPECT_THAT(errorOf([&] { r.masked_fill_(T({3}, {1, 0, 1}, kByte), 0); }),
              HasSubstr("masked_fill_ only supports boolean masks, but got mask with dtype Byte"));
  EXPECT_THAT(errorOf([&] { r.masked_fill_(T({3}, {1, 0, 1}, kBool), T({1}, {2}, kInt)); }),
              HasSubstr("only supports a 0-dimensional value tensor, but got tensor with 1 "
                        "dimension(s)"));
  at::Tensor bytes = T({2}, {1, 2}, kByte);
  EXPECT_THAT(errorOf([&] { bytes.masked_fill_(T({2}, {1, 0}, kBool), 300); }),
              HasSubstr("value 300 cannot be converted to type"));
  EXPECT_TRUE(close(bytes, Ref({2}, {1, 2}), kByte, kExact)) << "bytes changed";
  EXPECT_THAT(errorOf([&] { at::masked_fill(row, T({2}, {1, 0}, kBool), 0); }),
              HasSubstr("[3] and [2] cannot be broadcast"));
}

TEST_P(Indexing, MaskedSelect) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({3, 4}, dtype, device(), {}, 61)) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name);
      const Ref mask = random_ref({3, 1}, kBool, {}, 62);
      Ref expect({0}, {});
      for (int64_t k = 0; k < 12; ++k) {
        if (mask.v[static_cast<size_t>(k / 4)] != 0) expect.v.push_back(c.ref.v[static_cast<size_t>(k)]);
      }
      expect.shape = {expect.numel()};
      const at::Tensor m = make_tensor(mask, kBool, device());
      EXPECT_TRUE(close(at::masked_select(c.tensor, m), expect, dtype, kExact));
      at::Tensor out = at::empty({0}, options(dtype));
      at::masked_select_out(out, c.tensor, m);
      EXPECT_TRUE(close(out, expect, dtype, kExact));
    }
  }
  // self broadcasts against a larger mask; 0-d self.
  EXPECT_TRUE(close(at::masked_select(T({2}, {7, 8}, kFloat), T({2, 2}, {1, 0, 1, 1}, kBool)),
                    Ref({3}, {7, 7, 8}), kFloat, kExact));
  EXPECT_TRUE(close(at::masked_select(T({}, {7}, kFloat), T({}, {0}, kBool)), Ref({0}, {}),
                    kFloat, kExact));
  EXPECT_THAT(errorOf([&] { at::masked_select(T({2}, {7, 8}, kFloat), T({2}, {1, 0}, kInt)); }),
              HasSubstr("only supports boolean masks"));
}

Ref nonzero_ref(const Ref& x) {
  Ref out;
  int64_t n = 0;
  for (int64_t k = 0; k < x.numel(); ++k) {
    if (x.v[static_cast<size_t>(k)] == 0) continue;
    ++n;
    for (int64_t c : unravel(k, x.shape)) out.v.push_back(static_cast<double>(c));
  }
  out.shape = {n, x.dim()};
  return out;
}

TEST_P(Indexing, NonzeroEveryDtypeShapeAndLayout) {
  for (ScalarType dtype : all_dtypes()) {
    for (const auto& shape : test_shapes()) {
      for (const Case& c : layouts(shape, dtype, device(), {-1, 1}, 71)) {
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name);
        EXPECT_TRUE(close(at::nonzero(c.tensor), nonzero_ref(c.ref), kLong, kExact));
        EXPECT_TRUE(close(c.tensor.nonzero(), nonzero_ref(c.ref), kLong, kExact));
      }
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(close(at::nonzero(T({3}, {0, nan, -0.0}, kFloat)), Ref({1, 1}, {1}), kLong,
                    kExact));
  at::Tensor out = at::empty({0}, options(kLong));
  at::nonzero_out(out, T({2, 2}, {0, 1, 1, 0}, kInt));
  EXPECT_TRUE(close(out, Ref({2, 2}, {0, 1, 1, 0}), kLong, kExact));
  at::Tensor bad = at::empty({0}, options(kInt));
  EXPECT_THAT(errorOf([&] { at::nonzero_out(bad, T({2}, {0, 1}, kInt)); }),
              HasSubstr("expected out tensor to have dtype Long, but got Int"));
}

}  // namespace
}  // namespace ember_conformance
