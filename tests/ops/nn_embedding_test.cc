// Conformance: embedding, embedding_dense_backward and embedding_backward
// against references and finite differences.
#include <cmath>

#include "tests/ops/nn_test_util.h"

namespace ember_conformance {
namespace {

using nn_test::check_finite_differences;
using nn_test::random_tensor;

class NnEmbedding : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(NnEmbedding);

// The rows of w ([rows, d]) picked by idx, shaped idx_shape + [d].
Ref embedding_ref(const Ref& w, const std::vector<double>& idx,
                  const std::vector<int64_t>& idx_shape) {
  const int64_t d = w.shape[1];
  std::vector<int64_t> shape = idx_shape;
  shape.push_back(d);
  std::vector<double> v;
  for (double i : idx) {
    for (int64_t j = 0; j < d; ++j) v.push_back(w.v[static_cast<size_t>(static_cast<int64_t>(i) * d + j)]);
  }
  return Ref(shape, v);
}

TEST_P(NnEmbedding, PicksRowsForEveryIndexShapeLayoutAndDtype) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<double>>> index_cases = {
      {{2, 3}, {4, 0, 2, 2, 1, 4}}, {{}, {3}}, {{0}, {}}, {{5}, {0, 1, 2, 3, 4}}};
  for (const ScalarType dtype : {kFloat, kDouble, kHalf, kLong, kBool}) {
    for (const Case& w : layouts({5, 3}, dtype, device(), {-3, 3}, 71)) {
      for (const auto& [shape, values] : index_cases) {
        for (const ScalarType index_type : {kLong, kInt}) {
          const at::Tensor idx = make_tensor(Ref(shape, values), index_type, device());
          EXPECT_TRUE(close(at::embedding(w.tensor, idx), embedding_ref(w.ref, values, shape),
                            dtype, Tol{0, 0}))
              << w.name << " " << ::testing::PrintToString(shape);
        }
      }
    }
  }
  // Enough rows to split between threads.
  std::vector<double> many;
  for (int i = 0; i < 1000; ++i) many.push_back((i * 7) % 50);
  const Ref big = random_ref({50, 40}, kFloat, {}, 5);
  EXPECT_TRUE(close(at::embedding(make_tensor(big, kFloat, device()),
                                  make_tensor(Ref({1000}, many), kLong, device())),
                    embedding_ref(big, many, {1000}), kFloat, Tol{0, 0}));
  // Non-contiguous indices.
  const Ref wr = random_ref({5, 2}, kFloat, {}, 3);
  const at::Tensor idx = make_tensor(Ref({2, 2}, {1, 3, 4, 0}), kLong, device()).t();
  EXPECT_TRUE(close(at::embedding(make_tensor(wr, kFloat, device()), idx),
                    embedding_ref(wr, {1, 4, 3, 0}, {2, 2}), kFloat, Tol{0, 0}));
}

// The dense gradient: rows of grad summed by index, skipping padding_idx,
// scaled by 1 / count with scale_grad_by_freq.
Ref dense_backward_ref(const Ref& grad, const std::vector<double>& idx, int64_t rows,
                       int64_t padding_idx, bool scale) {
  const int64_t d = grad.shape.back();
  Ref r({rows, d}, std::vector<double>(static_cast<size_t>(rows * d), 0.0));
  std::vector<double> count(static_cast<size_t>(rows), 0.0);
  for (double i : idx) count[static_cast<size_t>(i)] += 1;
  for (size_t k = 0; k < idx.size(); ++k) {
    const int64_t i = static_cast<int64_t>(idx[k]);
    if (i == padding_idx) continue;
    for (int64_t j = 0; j < d; ++j) {
      r.v[static_cast<size_t>(i * d + j)] +=
          grad.v[k * static_cast<size_t>(d) + static_cast<size_t>(j)] / (scale ? count[static_cast<size_t>(i)] : 1.0);
    }
  }
  return r;
}

TEST_P(NnEmbedding, DenseBackwardSumsRowsByIndex) {
  const std::vector<double> values = {4, 0, 2, 2, 1, 4};
  const at::Tensor idx = make_tensor(Ref({2, 3}, values), kLong, device());
  for (const ScalarType dtype : {kFloat, kDouble, kBFloat16}) {
    Ref gr;
    const at::Tensor grad = random_tensor({2, 3, 4}, dtype, {-2, 2}, 81, true, &gr);
    for (const int64_t padding_idx : {int64_t{-1}, int64_t{2}}) {
      for (const bool scale : {false, true}) {
        const Ref want = dense_backward_ref(gr, values, 6, padding_idx, scale);
        const Tol tol = dtype == kBFloat16 ? Tol{1e-2, 1e-2} : default_tol(dtype);
        EXPECT_TRUE(close(at::embedding_dense_backward(grad, idx, 6, padding_idx, scale), want,
                          dtype, tol));
        EXPECT_TRUE(close(at::embedding_backward(grad, idx, 6, padding_idx, scale, false), want,
                          dtype, tol));
      }
    }
  }
  // The forward is linear in the weight: the backward is its exact gradient.
  Ref wr;
  const at::Tensor w = random_tensor({6, 4}, kDouble, {}, 83, false, &wr);
  const at::Tensor go = make_tensor(random_ref({2, 3, 4}, kDouble, {}, 85), kDouble, device());
  const at::Tensor gw = at::embedding_dense_backward(go, idx, 6, -1, false);
  EXPECT_TRUE(check_finite_differences([&](const at::Tensor& t) { return at::embedding(t, idx); },
                                       w, go, gw));
}

TEST_P(NnEmbedding, RefusesBadInput) {
  const at::Tensor w = at::zeros({5, 3}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::embedding(w, make_tensor(Ref({2}, {1, 5}), kLong, device())); }),
              HasSubstr("index 5 is out of range for an embedding of 5 rows (index out of range "
                        "in self)"));
  EXPECT_THAT(errorOf([&] { at::embedding(w, make_tensor(Ref({1}, {-1}), kInt, device())); }),
              HasSubstr("index -1 is out of range"));
  EXPECT_THAT(errorOf([&] { at::embedding(w, make_tensor(Ref({1}, {1}), kFloat, device())); }),
              HasSubstr("Expected tensor for argument #1 'indices' to have one of the following "
                        "scalar types: Long, Int; but got Float"));
  EXPECT_THAT(errorOf([&] { at::embedding(at::zeros({5}), make_tensor(Ref({1}, {1}), kLong, device())); }),
              HasSubstr("'weight' must be 2-D"));
  const at::Tensor idx = make_tensor(Ref({2}, {0, 7}), kLong, device());
  EXPECT_THAT(errorOf([&] { at::embedding_dense_backward(at::zeros({2, 3}), idx, 5, -1, false); }),
              HasSubstr("index 7 is out of range"));
  EXPECT_THAT(errorOf([&] { at::embedding_dense_backward(at::zeros({3, 3}), idx, 8, -1, false); }),
              HasSubstr("grad_output must have shape indices.sizes() + [embedding_dim]"));
  EXPECT_THAT(errorOf([&] { at::embedding_backward(at::zeros({2, 3}), idx, 8, -1, false, true); }),
              HasSubstr("sparse gradients are not supported"));
}

}  // namespace
}  // namespace ember_conformance
