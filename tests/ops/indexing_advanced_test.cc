// Conformance: index.Tensor (advanced indexing) and index_put_/index_put
// against a reference written from NumPy's documented rules, for every
// dtype and the layouts of conformance.h.
#include <optional>
#include <tuple>

#include "registration/library.h"

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class AdvancedIndexing : public OpTest {
 protected:
  at::Tensor T(std::vector<int64_t> shape, std::vector<double> v,
               ScalarType dtype = kLong) const {
    return make_tensor(Ref(std::move(shape), std::move(v)), dtype, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(AdvancedIndexing);

constexpr Tol kExact{0, 0};
using Indices = std::vector<std::optional<at::Tensor>>;

// One entry of an index list for the reference: None, integer positions,
// or a boolean mask.
struct Entry {
  enum Kind { kNone, kInt, kMask } kind = kNone;
  Ref r;
};

// For every result position, the self position it reads (NumPy's rules:
// masks become their nonzero coordinates; index arrays broadcast; the
// broadcast dims replace the indexed dims in place when those are adjacent,
// and go first otherwise).
struct RefPlan {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> source;  // one self position per element
};

RefPlan plan_ref(const std::vector<int64_t>& self_shape, const std::vector<Entry>& entries) {
  const int64_t nd = static_cast<int64_t>(self_shape.size());
  std::vector<const Ref*> per_dim(static_cast<size_t>(nd), nullptr);
  std::vector<Ref> owned;
  owned.reserve(16);
  int64_t d = 0;
  for (const Entry& e : entries) {
    if (e.kind == Entry::kNone) {
      ++d;
    } else if (e.kind == Entry::kInt) {
      per_dim[static_cast<size_t>(d++)] = &e.r;
    } else {
      const int64_t m = e.r.dim();
      std::vector<Ref> cols(static_cast<size_t>(m));
      for (int64_t k = 0; k < e.r.numel(); ++k) {
        if (e.r.v[static_cast<size_t>(k)] == 0) continue;
        const auto i = unravel(k, e.r.shape);
        for (int64_t j = 0; j < m; ++j) cols[static_cast<size_t>(j)].v.push_back(double(i[j]));
      }
      for (int64_t j = 0; j < m; ++j) {
        cols[static_cast<size_t>(j)].shape = {static_cast<int64_t>(cols[static_cast<size_t>(j)].v.size())};
        owned.push_back(cols[static_cast<size_t>(j)]);
        per_dim[static_cast<size_t>(d++)] = &owned.back();
      }
    }
  }
  std::vector<int64_t> b;
  std::vector<int64_t> indexed;
  for (int64_t k = 0; k < nd; ++k) {
    if (per_dim[static_cast<size_t>(k)] == nullptr) continue;
    b = indexed.empty() ? per_dim[static_cast<size_t>(k)]->shape
                        : broadcast_shapes(b, per_dim[static_cast<size_t>(k)]->shape);
    indexed.push_back(k);
  }
  const bool adjacent =
      indexed.empty() || indexed.back() - indexed.front() + 1 == int64_t(indexed.size());
  // Result dims: (self dim or -1 for the broadcast block) in order.
  std::vector<int64_t> layout;
  bool placed = false;
  for (int64_t k = 0; k < nd; ++k) {
    if (per_dim[static_cast<size_t>(k)] != nullptr) {
      if (!placed) layout.push_back(-1);
      placed = true;
      continue;
    }
    layout.push_back(k);
  }
  if (!adjacent) {
    layout.erase(std::find(layout.begin(), layout.end(), -1));
    layout.insert(layout.begin(), -1);
  }
  RefPlan plan;
  for (int64_t l : layout) {
    if (l == -1) {
      plan.shape.insert(plan.shape.end(), b.begin(), b.end());
    } else {
      plan.shape.push_back(self_shape[static_cast<size_t>(l)]);
    }
  }
  std::vector<Ref> expanded;
  for (int64_t k : indexed) expanded.push_back(broadcast_to(*per_dim[static_cast<size_t>(k)], b));
  for (int64_t n = 0; n < numel_of(plan.shape); ++n) {
    const auto pos = unravel(n, plan.shape);
    std::vector<int64_t> src(static_cast<size_t>(nd), 0);
    size_t p = 0;
    for (int64_t l : layout) {
      if (l == -1) {
        const std::vector<int64_t> bi(pos.begin() + static_cast<int64_t>(p),
                                      pos.begin() + static_cast<int64_t>(p + b.size()));
        for (size_t j = 0; j < indexed.size(); ++j) {
          int64_t v = static_cast<int64_t>(expanded[j].at(bi));
          if (v < 0) v += self_shape[static_cast<size_t>(indexed[j])];
          src[static_cast<size_t>(indexed[j])] = v;
        }
        p += b.size();
      } else {
        src[static_cast<size_t>(l)] = pos[p++];
      }
    }
    plan.source.push_back(src);
  }
  return plan;
}

Ref index_ref(const Ref& self, const std::vector<Entry>& entries) {
  const RefPlan plan = plan_ref(self.shape, entries);
  Ref out(plan.shape, std::vector<double>(plan.source.size()));
  for (size_t n = 0; n < plan.source.size(); ++n) out.v[n] = self.at(plan.source[n]);
  return out;
}

Ref index_put_ref(Ref self, const std::vector<Entry>& entries, const Ref& values,
                  bool accumulate, ScalarType dtype) {
  const RefPlan plan = plan_ref(self.shape, entries);
  const Ref v = broadcast_to(values, plan.shape);
  for (size_t n = 0; n < plan.source.size(); ++n) {
    double& x = self.at(plan.source[n]);
    x = accumulate ? (dtype == kBool ? double(x != 0 || v.v[n] != 0) : as_dtype(x + v.v[n], dtype))
                   : v.v[n];
  }
  return self;
}

Indices to_indices(const std::vector<Entry>& entries, c10::Device device, ScalarType int_type) {
  Indices out;
  for (const Entry& e : entries) {
    if (e.kind == Entry::kNone) {
      out.emplace_back(std::nullopt);
    } else {
      out.emplace_back(make_tensor(e.r, e.kind == Entry::kMask ? kBool : int_type, device));
    }
  }
  return out;
}

Entry none() { return {}; }
Entry ints(std::vector<int64_t> shape, std::vector<double> v) {
  return {Entry::kInt, Ref(std::move(shape), std::move(v))};
}
Entry mask(std::vector<int64_t> shape, std::vector<double> v) {
  return {Entry::kMask, Ref(std::move(shape), std::move(v))};
}

// Index lists for a [3, 4, 5] tensor covering every placement rule.
std::vector<std::pair<std::string, std::vector<Entry>>> index_cases() {
  return {
      {"x[i]", {ints({4}, {2, 0, -1, 0})}},
      {"x[i] 0-d", {ints({}, {1})}},
      {"x[:, i]", {none(), ints({2, 2}, {3, -4, 1, 1})}},
      {"x[:, :, i]", {none(), none(), ints({3}, {4, 0, 4})}},
      {"x[i, j] broadcast", {ints({2, 1}, {0, 2}), ints({3}, {1, 3, -1})}},
      {"x[:, i, j] adjacent", {none(), ints({2}, {0, 3}), ints({2}, {1, 4})}},
      {"x[i, :, j] separated", {ints({2}, {0, 2}), none(), ints({2}, {1, 3})}},
      {"x[i, j, k]", {ints({2}, {0, 2}), ints({1}, {3}), ints({2}, {4, 0})}},
      {"x[mask]", {mask({3}, {1, 0, 1})}},
      {"x[mask2d]", {mask({3, 4}, {1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1})}},
      {"x[:, mask]", {none(), mask({4}, {0, 1, 1, 0})}},
      {"x[i, :, mask]", {ints({1}, {2}), none(), mask({5}, {1, 0, 0, 1, 0})}},
      {"x[empty]", {ints({0}, {})}},
      {"x[false mask]", {none(), mask({4}, {0, 0, 0, 0})}},
      {"x[None, None]", {none(), none()}},
  };
}

TEST_P(AdvancedIndexing, IndexEveryRuleDtypeAndLayout) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({3, 4, 5}, dtype, device(), {}, 101)) {
      for (const auto& [name, entries] : index_cases()) {
        for (ScalarType it : {kLong, kInt}) {
          SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " " + name + " " +
                       std::string(c10::toString(it)));
          const Indices indices = to_indices(entries, device(), it);
          EXPECT_TRUE(close(at::index(c.tensor, indices), index_ref(c.ref, entries), dtype,
                            kExact));
        }
      }
    }
  }
}

TEST_P(AdvancedIndexing, IndexPlacesDimsAsNumPy) {
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i);
  const at::Tensor x = T({2, 3, 4}, v, kFloat);
  // Separated by a slice: the broadcast dims go first.
  EXPECT_TRUE(close(at::index(x, {T({2}, {0, 1}), std::nullopt, T({2}, {1, 2})}),
                    Ref({2, 3}, {1, 5, 9, 14, 18, 22}), kFloat, kExact));
  // Adjacent: they stay in place.
  EXPECT_TRUE(close(at::index(x, {std::nullopt, T({2}, {0, 2}), T({2}, {1, 3})}),
                    Ref({2, 2}, {1, 11, 13, 23}), kFloat, kExact));
  // A byte mask acts like a bool mask; a 0-d tensor input with no index copies.
  EXPECT_TRUE(close(at::index(x, {T({2}, {0, 1}, kByte)}), Ref({1, 3, 4}, std::vector<double>(v.begin() + 12, v.end())),
                    kFloat, kExact));
  EXPECT_TRUE(close(at::index(T({}, {3}, kFloat), {}), Ref({}, {3}), kFloat, kExact));
  // Expanded index tensors and a non-contiguous index.
  EXPECT_TRUE(close(at::index(x, {T({1}, {1}).expand({3})}),
                    index_ref(Ref({2, 3, 4}, v), {ints({3}, {1, 1, 1})}), kFloat, kExact));
  at::Tensor out = at::empty({0}, options(kFloat));
  at::index_out(out, x, {std::nullopt, T({2}, {2, 0}).slice(0, 0, 2, 1)});
  EXPECT_TRUE(close(out, index_ref(Ref({2, 3, 4}, v), {none(), ints({2}, {2, 0})}), kFloat,
                    kExact));
  // Zero-size self.
  EXPECT_TRUE(close(at::index(T({0, 3}, {}, kFloat), {std::nullopt, T({2}, {2, -3})}),
                    Ref({0, 2}, {}), kFloat, kExact));
}

TEST_P(AdvancedIndexing, IndexErrors) {
  const at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kFloat);
  EXPECT_THAT(errorOf([&] { at::index(x, {T({1}, {2})}); }),
              HasSubstr("index 2 is out of bounds for dimension 0 with size 2"));
  EXPECT_THAT(errorOf([&] { at::index(x, {std::nullopt, T({1}, {-4})}); }),
              HasSubstr("index -4 is out of bounds for dimension 1 with size 3"));
  EXPECT_THAT(errorOf([&] { at::index(x, {T({1}, {0}, kFloat)}); }),
              HasSubstr("tensors used as indices must be long, int, byte or bool tensors"));
  EXPECT_THAT(errorOf([&] { at::index(x, {T({1}, {0}), T({1}, {0}), T({1}, {0})}); }),
              HasSubstr("too many indices for tensor of dimension 2 (got 3)"));
  EXPECT_THAT(errorOf([&] { at::index(x, {T({2}, {0, 1}), T({3}, {0, 1, 2})}); }),
              HasSubstr("shape mismatch: indexing tensors could not be broadcast together "
                        "with shapes [2], [3]"));
  EXPECT_THAT(errorOf([&] { at::index(x, {T({3}, {1, 0, 1}, kBool)}); }),
              HasSubstr("The shape of the mask [3] at index 0 does not match the shape of "
                        "the indexed tensor [2, 3] at index 0"));
  EXPECT_THAT(errorOf([&] { at::index(x, {T({}, {1}, kBool)}); }),
              HasSubstr("a 0-dimensional boolean index is not supported"));
  at::Tensor bad = at::empty({0}, options(kDouble));
  EXPECT_THAT(errorOf([&] { at::index_out(bad, x, {T({1}, {0})}); }),
              HasSubstr("expected out tensor to have dtype Float, but got Double"));
}

TEST_P(AdvancedIndexing, IndexPutEveryRuleDtypeAndLayout) {
  for (ScalarType dtype : all_dtypes()) {
    for (const Case& c : layouts({3, 4, 5}, dtype, device(), {}, 111)) {
      if (c.tensor.stride(0) == 0) continue;  // expanded: not writable
      for (const auto& [name, entries] : index_cases()) {
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " " + name);
        const Indices indices = to_indices(entries, device(), kLong);
        const std::vector<int64_t> rshape = plan_ref(c.ref.shape, entries).shape;
        // Full-shape values, and values broadcast from the last dim.
        const Ref full = random_ref(rshape, dtype, {}, 7);
        for (bool accumulate : {false, true}) {
          at::Tensor self = c.tensor.clone();
          at::index_put_(self, indices, make_tensor(full, dtype, device()), accumulate);
          EXPECT_TRUE(close(self, index_put_ref(c.ref, entries, full, accumulate, dtype),
                            dtype, kExact)) << "accumulate " << accumulate;
        }
        const Ref scalar({}, {dtype == kBool ? 1.0 : 2.0});
        const at::Tensor put = at::index_put(c.tensor, indices, make_tensor(scalar, dtype, device()));
        EXPECT_TRUE(close(put, index_put_ref(c.ref, entries, scalar, false, dtype), dtype, kExact));
        EXPECT_TRUE(close(c.tensor, c.ref, dtype, kExact)) << "index_put changed self";
      }
    }
  }
}

TEST_P(AdvancedIndexing, IndexPutAccumulateSumsDuplicates) {
  at::Tensor x = T({4}, {0, 0, 0, 0}, kFloat);
  x.index_put_({T({5}, {1, 1, 3, 1, -1})}, T({5}, {1, 2, 3, 4, 5}, kFloat), true);
  EXPECT_TRUE(close(x, Ref({4}, {0, 7, 0, 8}), kFloat, kExact));
  at::Tensor y = T({2, 2}, {0, 0, 0, 0}, kLong);
  y.index_put_({T({3}, {0, 0, 1}), T({3}, {1, 1, 0})}, T({}, {5}, kLong), true);
  EXPECT_TRUE(close(y, Ref({2, 2}, {0, 10, 5, 0}), kLong, kExact));
  // Values with extra leading 1-dims, and values that alias self.
  at::Tensor z = T({2, 3}, {0, 1, 2, 3, 4, 5}, kInt);
  z.index_put_({T({1}, {1})}, T({1, 1, 3}, {7, 8, 9}, kInt));
  EXPECT_TRUE(close(z, Ref({2, 3}, {0, 1, 2, 7, 8, 9}), kInt, kExact));
  z.index_put_({T({1}, {0})}, z.select(0, 1));
  EXPECT_TRUE(close(z, Ref({2, 3}, {7, 8, 9, 7, 8, 9}), kInt, kExact));
  // A large put splits the pre dims between threads.
  const Ref big = random_ref({40000, 3}, kDouble, {}, 3);
  at::Tensor w = at::zeros({40000, 3}, at::kDouble);
  at::index_put_(w, {std::nullopt, T({3}, {2, 0, 1})}, make_tensor(big, kDouble, device()));
  Ref expect({40000, 3}, std::vector<double>(120000));
  for (int64_t i = 0; i < 40000; ++i) {
    expect.at({i, 2}) = big.at({i, 0});
    expect.at({i, 0}) = big.at({i, 1});
    expect.at({i, 1}) = big.at({i, 2});
  }
  EXPECT_TRUE(close(w, expect, kDouble, kExact));
}

TEST_P(AdvancedIndexing, IndexPutErrors) {
  at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kFloat);
  EXPECT_THAT(errorOf([&] { x.index_put_({T({1}, {0})}, T({3}, {1, 2, 3}, kDouble)); }),
              HasSubstr("Index put requires the source and destination dtypes match, got "
                        "Float for the destination and Double for the source"));
  EXPECT_THAT(errorOf([&] { x.index_put_({T({1}, {0})}, T({2}, {1, 2}, kFloat)); }),
              HasSubstr("shape mismatch: value tensor of shape [2] cannot be broadcast to "
                        "indexing result of shape [1, 3]"));
  EXPECT_THAT(errorOf([&] { x.index_put_({T({1}, {5})}, T({}, {1}, kFloat)); }),
              HasSubstr("index 5 is out of bounds for dimension 0 with size 2"));
  EXPECT_TRUE(close(x, Ref({2, 3}, {0, 1, 2, 3, 4, 5}), kFloat, kExact)) << "x changed";
  at::Tensor e = T({1, 3}, {0, 0, 0}, kFloat).expand({2, 3});
  EXPECT_THAT(errorOf([&] { e.index_put_({T({1}, {0})}, T({}, {1}, kFloat)); }),
              HasSubstr("more than one element of the written-to tensor refers to a single "
                        "memory location"));
}

// Tensor?[] arguments cross the boxed path (IValue stacks) both ways.
TEST_P(AdvancedIndexing, OptionalTensorListsCrossTheBoxedPath) {
  const at::Tensor x = T({2, 3}, {0, 1, 2, 3, 4, 5}, kFloat);
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::index", "Tensor");
  torch::jit::Stack stack;
  std::vector<std::optional<at::TensorBase>> indices = {std::nullopt, T({2}, {2, 0})};
  torch::jit::push(stack, x, indices);
  op.callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(close(at::Tensor(stack[0].toTensorBase()), Ref({2, 2}, {2, 0, 5, 3}), kFloat,
                    kExact));
}

// A boxed kernel for an op returning two out= tensors: the unboxed caller
// gets references to its own out= arguments back.
void fill_two_outs(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  at::Tensor b((*stack)[2].toTensorBase());
  at::Tensor a((*stack)[1].toTensorBase());
  a.fill_(1);
  b.fill_(2);
  torch::jit::drop(*stack, 3);
  torch::jit::push(*stack, a, b);
}

TEST_P(AdvancedIndexing, TupleOfOutReferencesFromABoxedKernel) {
  torch::Library def(torch::Library::DEF, "indexing_test", std::nullopt, __FILE__, __LINE__);
  def.def("two_out(Tensor self, *, Tensor(a!) a, Tensor(b!) b) -> (Tensor(a!) a, Tensor(b!) b)");
  torch::Library cpu(torch::Library::IMPL, "indexing_test", c10::DispatchKey::CPU, __FILE__,
                     __LINE__);
  cpu.impl("two_out", torch::CppFunction::makeFromBoxedFunction<&fill_two_outs>());
  auto op = c10::Dispatcher::singleton()
                .findSchemaOrThrow("indexing_test::two_out", "")
                .typed<std::tuple<at::Tensor&, at::Tensor&>(const at::Tensor&, at::Tensor&,
                                                           at::Tensor&)>();
  const at::Tensor x = T({2}, {0, 0}, kFloat);
  at::Tensor a = T({2}, {0, 0}, kFloat);
  at::Tensor b = T({2}, {0, 0}, kFloat);
  auto result = op.call(x, a, b);
  EXPECT_EQ(&std::get<0>(result), &a);
  EXPECT_EQ(&std::get<1>(result), &b);
  EXPECT_TRUE(close(a, Ref({2}, {1, 1}), kFloat, kExact));
  EXPECT_TRUE(close(b, Ref({2}, {2, 2}), kFloat, kExact));
}

}  // namespace
}  // namespace ember_conformance
