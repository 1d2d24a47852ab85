// tests/ops/conformance_variants.cc — the in-place, out= and three-input
// checks of the op-conformance suite (declared in conformance.h; the
// references, tensors and two-input checks are in conformance.cc).
#include "tests/ops/conformance.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ember_conformance {

void check_unary_inplace(const std::string& name, const InplaceOp& op,
                         const std::function<double(double)>& ref, const Dtypes& dtypes,
                         Domain domain, c10::Device device, std::optional<Tol> tol) {
  uint64_t seed = 500;
  for (ScalarType dtype : dtypes) {
    for (const auto& shape : test_shapes()) {
      for (const Case& c : layouts(shape, dtype, device, domain, seed++)) {
        if (c.name.find("expanded") != std::string::npos) continue;
        SCOPED_TRACE(name + " in place on " + c10::toString(dtype) + " " + c.name);
        at::Tensor x = c.tensor;
        const void* before = x.numel() > 0 ? x.data_ptr() : nullptr;
        try {
          op(x);
        } catch (const c10::Error& e) {
          ADD_FAILURE() << "threw: " << e.what_without_backtrace();
          continue;
        }
        if (before != nullptr) {
          EXPECT_EQ(x.data_ptr(), before);
        }
        EXPECT_TRUE(close(x, map(c.ref, ref), dtype, tol.value_or(default_tol(dtype))));
      }
    }
  }
}

void check_unary_out(const std::string& name, const OutOp& op,
                     const std::function<double(double)>& ref, const Dtypes& dtypes,
                     Domain domain, c10::Device device, const ResultDtype& result,
                     std::optional<Tol> tol) {
  uint64_t seed = 700;
  for (ScalarType dtype : dtypes) {
    const ScalarType out_dtype = result(dtype);
    const Tol t = tol.value_or(default_tol(out_dtype));
    for (const auto& shape : test_shapes()) {
      for (const Case& c : layouts(shape, dtype, device, domain, seed++)) {
        if (c.name.find("expanded") != std::string::npos) continue;
        SCOPED_TRACE(name + " out= on " + c10::toString(dtype) + " " + c.name);
        try {
          at::Tensor out = at::empty({0}, at::TensorOptions().dtype(out_dtype).device(device));
          op(c.tensor, out);
          EXPECT_TRUE(close(out, map(c.ref, ref), out_dtype, t));
          if (shape.size() >= 2) {
            std::vector<int64_t> swapped = shape;
            std::swap(swapped[0], swapped[1]);
            at::Tensor target =
                at::empty(swapped, at::TensorOptions().dtype(out_dtype).device(device))
                    .transpose(0, 1);
            op(c.tensor, target);
            EXPECT_TRUE(close(target, map(c.ref, ref), out_dtype, t)) << "transposed out";
          }
        } catch (const c10::Error& e) {
          ADD_FAILURE() << "threw: " << e.what_without_backtrace();
        }
      }
    }
  }
}

ScalarType result_type(const std::vector<std::pair<ScalarType, int64_t>>& tensors) {
  std::optional<ScalarType> dimensioned, zero_dim;
  for (const auto& [t, dim] : tensors) {
    std::optional<ScalarType>& acc = dim > 0 ? dimensioned : zero_dim;
    acc = acc ? c10::promoteTypes(*acc, t) : t;
  }
  if (!dimensioned) return *zero_dim;
  if (!zero_dim) return *dimensioned;
  auto category = [](ScalarType t) {
    return t == kBool ? 0 : c10::isFloatingType(t) ? 2 : 1;
  };
  return category(*zero_dim) > category(*dimensioned)
             ? c10::promoteTypes(*dimensioned, *zero_dim)
             : *dimensioned;
}

const std::vector<std::vector<std::vector<int64_t>>>& ternary_shape_triples() {
  static const std::vector<std::vector<std::vector<int64_t>>> t = {
      {{3, 4}, {3, 4}, {3, 4}}, {{3, 1}, {1, 4}, {4}}, {{}, {2, 3}, {}},
      {{2, 3}, {}, {}},         {{0, 4}, {4}, {}},      {{2, 3, 4}, {3, 1}, {4}}};
  return t;
}

void check_ternary(const std::string& name, const TernaryOp& op,
                   const std::function<double(double, double, double)>& ref,
                   const std::vector<std::vector<ScalarType>>& dtype_triples,
                   const std::vector<Domain>& domains, c10::Device device,
                   const ResultDtype& result, std::vector<bool> promotes,
                   std::optional<Tol> tol) {
  uint64_t seed = 3000;
  for (const auto& dt : dtype_triples) {
    for (const auto& shapes : ternary_shape_triples()) {
      std::vector<std::pair<ScalarType, int64_t>> promoted;
      for (size_t k = 0; k < 3; ++k) {
        if (promotes[k]) promoted.emplace_back(dt[k], static_cast<int64_t>(shapes[k].size()));
      }
      const ScalarType out_dtype = result(result_type(promoted));
      const std::vector<int64_t> shape =
          broadcast_shapes(broadcast_shapes(shapes[0], shapes[1]), shapes[2]);
      std::vector<std::vector<Case>> cases;
      for (size_t k = 0; k < 3; ++k) {
        cases.push_back(layouts(shapes[k], dt[k], device, domains[k], seed++));
      }
      for (const Case& a : cases[0]) {
        for (const Case& b : cases[1]) {
          for (const Case& c : cases[2]) {
            SCOPED_TRACE(name + " on " + c10::toString(dt[0]) + " " + a.name + ", " +
                         c10::toString(dt[1]) + " " + b.name + ", " +
                         c10::toString(dt[2]) + " " + c.name);
            at::Tensor out;
            try {
              out = op(a.tensor, b.tensor, c.tensor);
            } catch (const c10::Error& e) {
              ADD_FAILURE() << "threw: " << e.what_without_backtrace();
              continue;
            }
            const Ref x = broadcast_to(a.ref, shape);
            const Ref y = broadcast_to(b.ref, shape);
            const Ref z = broadcast_to(c.ref, shape);
            Ref expected = x;
            for (size_t i = 0; i < expected.v.size(); ++i) {
              expected.v[i] = ref(x.v[i], y.v[i], z.v[i]);
            }
            EXPECT_TRUE(close(out, expected, out_dtype, tol.value_or(default_tol(out_dtype))));
          }
        }
      }
    }
  }
}

}  // namespace ember_conformance
