// libtorch's C++ indexing (aten/TensorIndexing.h): Tensor::index and
// index_put_ with None, Ellipsis, integers, bools, Slice and tensors, and
// assignment through a view (`t[0] = v`), each checked against the view ops
// and loops they stand for, with gradients and the error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <torch/autograd.h>
#include <torch/detail/TensorDataContainer.h>
#include <torch/types.h>

#include "tests/support/error_of.h"

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ember_test::errorOf;
using namespace torch::indexing;  // NOLINT: the spelling libtorch programs use

namespace {

torch::Tensor x234() { return torch::arange(24, torch::kFloat).view({2, 3, 4}); }

std::vector<float> values(const torch::Tensor& t) {
  torch::Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

bool shares_memory(const torch::Tensor& a, const torch::Tensor& b) {
  return a.storage().data() == b.storage().data();
}

TEST(TensorIndexing, BasicIndicesMakeViews) {
  torch::Tensor x = x234();
  torch::Tensor a = x.index({Slice(), 0});  // x[:, 0]
  EXPECT_EQ(a.sizes().vec(), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(torch::equal(a, x.select(1, 0)));
  EXPECT_TRUE(shares_memory(a, x));
  EXPECT_TRUE(torch::equal(x.index({"...", 1}), x.select(2, 1)));
  torch::Tensor b = x.index({Ellipsis, Slice(None, None, 2)});  // x[..., ::2]
  EXPECT_EQ(b.sizes().vec(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_THAT(values(b.index({0, 0})), ElementsAre(0, 2));
  // Negative integers and bounds count from the end; bounds are clamped.
  EXPECT_TRUE(torch::equal(x.index({-1, Slice(-2, None)}), x[1].slice(0, 1, 3)));
  EXPECT_EQ(x.index({Slice(1, 100)}).sizes().vec(), (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(x.index({Slice(5, 10)}).size(0), 0);
  EXPECT_THAT(values(x.index({1, 2, Slice(1, None, 2)})), ElementsAre(21, 23));
  // None adds a dim of size 1 where it stands.
  EXPECT_EQ(x.index({None, 0}).sizes().vec(), (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(x.index({Slice(), None, "...", None}).sizes().vec(),
            (std::vector<int64_t>{2, 1, 3, 4, 1}));
  // x[...] and x[()] are new handles on the same memory.
  torch::Tensor all = x.index({"..."});
  EXPECT_FALSE(all.is_same(x));
  EXPECT_TRUE(shares_memory(all, x));
  EXPECT_TRUE(torch::equal(x.index({}), x));
  // A 0-d integer tensor is an integer.
  EXPECT_TRUE(torch::equal(x.index({torch::tensor(1)}), x[1]));
}

TEST(TensorIndexing, TensorsAndMasksIndexAsPyTorchAndCopy) {
  torch::Tensor x = x234();
  torch::Tensor rows = x.index({torch::tensor({1, 0, 1})});  // x[[1, 0, 1]]
  EXPECT_EQ(rows.sizes().vec(), (std::vector<int64_t>{3, 3, 4}));
  EXPECT_TRUE(torch::equal(rows[0], x[1]));
  EXPECT_TRUE(torch::equal(rows[1], x[0]));
  EXPECT_FALSE(shares_memory(rows, x));
  // x[:, [0, 2], 1]
  EXPECT_THAT(values(x.index({Slice(), torch::tensor({0, 2}), 1})), ElementsAre(1, 9, 13, 21));
  // x[x > 20]
  EXPECT_THAT(values(x.index({x > 20})), ElementsAre(21, 22, 23));
  // A 2-d mask names two dims: x[m, 3] with m over dims 0 and 1.
  torch::Tensor m = torch::tensor({true, false, true, false, true, false}).view({2, 3});
  EXPECT_THAT(values(x.index({m, 3})), ElementsAre(3, 11, 19));
  // ... and x[1:, m2] with a 1-d mask after a slice, then the last dim kept.
  EXPECT_THAT(values(x.index({Slice(1, None), torch::tensor({false, true, false})})),
              ElementsAre(16, 17, 18, 19));
  // true / false: a new dim of size 1, kept or emptied.
  EXPECT_EQ(x.index({true}).sizes().vec(), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(x.index({false}).sizes().vec(), (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(x.index({0, torch::tensor(false)}).sizes().vec(),
            (std::vector<int64_t>{0, 3, 4}));
  // operator[] with a tensor and a Scalar.
  EXPECT_TRUE(torch::equal(x[torch::tensor({1})], x.index({torch::tensor({1})})));
  EXPECT_TRUE(torch::equal(x[c10::Scalar(1)], x[1]));
}

TEST(TensorIndexing, IndexPutWritesThroughEveryKindOfIndex) {
  torch::Tensor y = torch::zeros({3, 4});
  y.index_put_({0, Slice(1, None)}, 7);  // y[0, 1:] = 7
  EXPECT_THAT(values(y[0]), ElementsAre(0, 7, 7, 7));
  y.index_put_({Slice(), 0}, torch::tensor({1.0f, 2.0f, 3.0f}));  // y[:, 0] = …
  EXPECT_THAT(values(y.select(1, 0)), ElementsAre(1, 2, 3));
  y.index_put_({y > 5}, -1);  // y[y > 5] = -1
  EXPECT_THAT(values(y[0]), ElementsAre(1, -1, -1, -1));
  y.index_put_({torch::tensor({2}), Slice(2, None)}, 9.5);  // y[[2], 2:] = 9.5
  EXPECT_THAT(values(y[2]), ElementsAre(3, 0, 9.5, 9.5));
  // Leading 1s of the value are dropped; a copy into a view converts the
  // dtype (an advanced index requires y's dtype, as libtorch).
  y.index_put_({1}, torch::ones({1, 4}));
  EXPECT_THAT(values(y[1]), ElementsAre(1, 1, 1, 1));
  y.index_put_({2}, torch::arange(4));
  EXPECT_THAT(values(y[2]), ElementsAre(0, 1, 2, 3));
  y.index_put_({torch::tensor({0, 1})}, torch::arange(4, torch::kFloat) * 10);  // broadcast
  EXPECT_THAT(values(y[1]), ElementsAre(0, 10, 20, 30));
  // A broadcast value through a slice.
  y.index_put_({Slice(), Slice(None, 2)}, torch::tensor({5.0f, 6.0f}));
  EXPECT_THAT(values(y.select(1, 1)), ElementsAre(6, 6, 6));
  torch::Tensor& same = y.index_put_({0}, 0);
  EXPECT_TRUE(same.is_same(y));
}

TEST(TensorIndexing, AssigningToAViewWritesIntoIt) {
  torch::Tensor y = torch::zeros({2, 3});
  y[1] = 5;
  y[0][2] = torch::tensor(4.0f);
  y.index({Slice(), 0}) = torch::tensor({8.0f, 9.0f});
  EXPECT_THAT(values(y), ElementsAre(8, 0, 4, 9, 5, 5));
  // Assigning to a named tensor still rebinds it (no copy).
  torch::Tensor a = torch::ones({2});
  torch::Tensor b = torch::zeros({3});
  a = b;
  EXPECT_TRUE(a.is_same(b));
  torch::Tensor c;
  c = torch::ones({1});
  EXPECT_EQ(c.numel(), 1);
}

TEST(TensorIndexing, GradientsFlowThroughIndexAndIndexPut) {
  torch::Tensor w = torch::arange(6, torch::kDouble).view({2, 3}).requires_grad_();
  w.index({Slice(), 1}).sum().backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::tensor({{0.0, 1.0, 0.0}, {0.0, 1.0, 0.0}},
                                                   torch::kDouble)));
  w.mutable_grad() = torch::Tensor();
  (w.index({torch::tensor({0, 0, 1}), 2}) * 2).sum().backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::tensor({{0.0, 0.0, 4.0}, {0.0, 0.0, 2.0}},
                                                   torch::kDouble)));
  // index_put_ on a copy: the written place gets no gradient from the copy.
  torch::Tensor v = w.clone();
  v.index_put_({0}, torch::zeros({3}, torch::kDouble));
  w.mutable_grad() = torch::Tensor();
  v.sum().backward();
  EXPECT_TRUE(torch::equal(w.grad(), torch::tensor({{0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}},
                                                   torch::kDouble)));
}

TEST(TensorIndexing, BadIndicesAreRefusedWithAMessage) {
  torch::Tensor x = x234();
  EXPECT_THAT(errorOf([&] { x.index({0, 0, 0, 0}); }),
              HasSubstr("index: too many indices for tensor of dimension 3: (0, 0, 0, 0) "
                        "names 4 dims"));
  EXPECT_THAT(errorOf([&] { x.index({"...", 0, Ellipsis}); }),
              HasSubstr("index: an index can only have a single ellipsis ('...'), but "
                        "(..., 0, ...) has 2."));
  EXPECT_THAT(errorOf([&] { x.index({Slice(None, None, -1)}); }),
              HasSubstr("slice step must be positive, but index 0 of (None:None:-1) has "
                        "step -1"));
  EXPECT_THAT(errorOf([&] { x.index({Slice(), 3}); }),
              HasSubstr("index: index 3 is out of bounds for dimension 1 with size 3 "
                        "(index 1 of (0:None:1, 3))"));
  EXPECT_THAT(errorOf([&] { x.index_put_({-3}, 1); }),
              HasSubstr("index_put_: index -3 is out of bounds for dimension 0 with size 2"));
  EXPECT_THAT(errorOf([&] { x.index({"..x"}); }),
              HasSubstr("the only string index is \"...\" (Ellipsis), but got \"..x\""));
  EXPECT_THAT(errorOf([&] { x.index({torch::Tensor()}); }),
              HasSubstr("index 0 of (Tensor(undefined)) is an undefined tensor"));
  EXPECT_THAT(errorOf([&] { x.index_put_({0}, torch::ones({2, 4})); }),
              HasSubstr("index_put_: shape mismatch: value tensor of shape [2, 4] cannot "
                        "be broadcast to indexing result of shape [3, 4]"));
  EXPECT_THAT(errorOf([&] { x.index_put_({x > 3}, torch::tensor(1.0, torch::kDouble)); }),
              HasSubstr("index_put_: Index put requires the source and destination dtypes "
                        "match, got Float for the destination and Double for the source"));
  EXPECT_THAT(errorOf([&] { x.index({torch::tensor({0.5f})}); }),
              HasSubstr("tensors used as indices must be long, int, byte or bool"));
  EXPECT_THAT(errorOf([&] { x.index({torch::ones({3}, torch::kBool)}); }),
              HasSubstr("The shape of the mask [3] at index 0 does not match"));
  EXPECT_THAT(errorOf([&] { x[c10::Scalar(1.5)]; }),
              HasSubstr("operator[]: expected an integer index, but got 1.5"));
}

TEST(TensorIndexing, IndexListsPrintAsPythonWritesThem) {
  std::ostringstream out;
  out << std::vector<TensorIndex>{Slice(1, None, 2), None, "...", -3, true,
                                  torch::zeros({2}, torch::kLong)};
  EXPECT_EQ(out.str(), "(1:None:2, None, ..., -3, True, Tensor[2] Long)");
}

}  // namespace
