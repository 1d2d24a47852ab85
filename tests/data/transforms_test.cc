// Transforms, TensorDataset, samplers and Example.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "nn/data/data.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace data = torch::data;

TEST(Transforms, LambdaAndTensorLambdaMapExamples) {
  data::datasets::TensorDataset rows(at::arange(6, at::kFloat).view({3, 2}));
  auto doubled = rows.map(data::transforms::Lambda<data::TensorExample>(
      [](data::TensorExample e) { return data::TensorExample(e.data * 2); }));
  auto batch = doubled.get_batch(std::vector<size_t>{2, 0});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].data[1].item<float>(), 10.0f);
  EXPECT_EQ(batch[1].data[0].item<float>(), 0.0f);

  data::Example<> ex{at::ones({2}), at::scalar_tensor(4, at::kLong)};
  data::transforms::TensorLambda<> plus_one([](at::Tensor t) { return t + 1; });
  data::Example<> out = plus_one.apply(ex);
  EXPECT_EQ(out.data[0].item<float>(), 2.0f);
  EXPECT_EQ(out.target.item<int64_t>(), 4);
  data::transforms::BatchLambda<std::vector<data::Example<>>, size_t> count(
      [](std::vector<data::Example<>> b) { return b.size(); });
  EXPECT_EQ(count.apply_batch({ex, ex, ex}), 3u);
}

TEST(Transforms, StackOfExamplesAndOfTensorExamples) {
  std::vector<data::Example<>> examples = {
      {at::full({2, 3}, 1.0), at::scalar_tensor(7, at::kLong)},
      {at::full({2, 3}, 2.0), at::scalar_tensor(8, at::kLong)}};
  data::Example<> batch = data::transforms::Stack<>().apply_batch(examples);
  EXPECT_EQ(batch.data.sizes(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(batch.target.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(batch.target[1].item<int64_t>(), 8);

  auto stacked = data::datasets::TensorDataset(at::arange(12, at::kFloat).view({4, 3}))
                     .map(data::transforms::Stack<data::TensorExample>());
  data::TensorExample rows = stacked.get_batch(std::vector<size_t>{3, 1});
  EXPECT_EQ(rows.data.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(rows.data[0][0].item<float>(), 9.0f);
  EXPECT_EQ(stacked.size().value(), 4u);

  EXPECT_THAT(errorOf([&] { data::transforms::Stack<>().apply_batch({}); }),
              HasSubstr("Stack: expected at least one example to stack, got an empty batch"));
  EXPECT_THAT(errorOf([&] { data::transforms::Stack<data::TensorExample>().apply_batch({}); }),
              HasSubstr("Stack: expected at least one example to stack"));
}

TEST(Transforms, NormalizePerChannel) {
  data::transforms::Normalize<> one(0.5, 0.25);
  at::Tensor image = at::ones({1, 2, 2});
  EXPECT_TRUE(at::allclose(one(image), at::full({1, 2, 2}, 2.0)));
  data::transforms::Normalize<> rgb({0.0, 1.0, 2.0}, {1.0, 2.0, 4.0});
  EXPECT_EQ(rgb.mean.sizes(), (std::vector<int64_t>{3, 1, 1}));
  at::Tensor out = rgb(at::full({3, 2, 2}, 4.0));
  EXPECT_FLOAT_EQ(out[0][1][1].item<float>(), 4.0f);
  EXPECT_FLOAT_EQ(out[1][0][0].item<float>(), 1.5f);
  EXPECT_FLOAT_EQ(out[2][0][1].item<float>(), 0.5f);
  // The target passes through.
  data::Example<> ex = rgb.apply({at::full({3, 1, 1}, 4.0), at::scalar_tensor(1, at::kLong)});
  EXPECT_EQ(ex.target.item<int64_t>(), 1);
}

TEST(Transforms, NormalizeRejectsBadStatistics) {
  EXPECT_THAT(errorOf([] { data::transforms::Normalize<>(0.5, 0.0); }),
              HasSubstr("Normalize: stddev must be non-zero, got 0"));
  EXPECT_THAT(errorOf([] {
                data::transforms::Normalize<>({0.1, 0.2}, {1.0, 1.0, 1.0});
              }),
              HasSubstr("Normalize: mean has 2 values and stddev 3"));
  EXPECT_THAT(errorOf([] {
                data::transforms::Normalize<>(c10::ArrayRef<double>(), c10::ArrayRef<double>{1.0});
              }),
              HasSubstr("Normalize: expected at least one mean value, got none"));
}

TEST(TensorDataset, RowsAndErrors) {
  data::datasets::TensorDataset set(std::vector<at::Tensor>{at::arange(5, at::kLong)});
  EXPECT_EQ(set.size().value(), 5u);
  EXPECT_EQ(set.get(4).data.item<int64_t>(), 4);
  EXPECT_THAT(errorOf([&] { set.get(5); }),
              HasSubstr("TensorDataset: index 5 is out of range for a dataset of 5 examples"));
  EXPECT_THAT(errorOf([] { data::datasets::TensorDataset(std::vector<at::Tensor>{}); }),
              HasSubstr("TensorDataset: expected at least one tensor, got none"));
  EXPECT_THAT(errorOf([] { data::datasets::TensorDataset(at::scalar_tensor(1.0)); }),
              HasSubstr("expected a tensor with at least one dimension (the examples), got a "
                        "0-dim tensor"));
}

TEST(Samplers, SequentialSampler) {
  data::samplers::SequentialSampler s(5);
  EXPECT_THAT(s.next(2).value(), ElementsAre(0, 1));
  EXPECT_EQ(s.index(), 2u);
  EXPECT_THAT(s.next(4).value(), ElementsAre(2, 3, 4));
  EXPECT_FALSE(s.next(1).has_value());
  s.reset();
  EXPECT_THAT(s.next(10).value(), ElementsAre(0, 1, 2, 3, 4));
  s.reset(2);
  EXPECT_THAT(s.next(10).value(), ElementsAre(0, 1));
  EXPECT_THAT(errorOf([&] { s.next(0); }),
              HasSubstr("SequentialSampler::next: expected a batch size of at least 1, got 0"));
}

TEST(Samplers, RandomSamplerPermutesAndReseeds) {
  torch::manual_seed(11);
  data::samplers::RandomSampler a(20);
  torch::manual_seed(11);
  data::samplers::RandomSampler b(20, at::kInt);
  std::vector<size_t> all_a;
  while (auto batch = a.next(6)) all_a.insert(all_a.end(), batch->begin(), batch->end());
  std::vector<size_t> all_b;
  while (auto batch = b.next(7)) all_b.insert(all_b.end(), batch->begin(), batch->end());
  EXPECT_EQ(a.index(), 20u);
  std::vector<size_t> sorted = all_a;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(sorted[i], i);
  a.reset();
  std::vector<size_t> again = a.next(20).value();
  EXPECT_NE(again, all_a);
  a.reset(3);
  EXPECT_EQ(a.next(10).value().size(), 3u);
  EXPECT_THAT(errorOf([&] { a.next(0); }),
              HasSubstr("RandomSampler::next: expected a batch size of at least 1, got 0"));
  EXPECT_THAT(errorOf([] { data::samplers::RandomSampler(-1); }),
              HasSubstr("RandomSampler: expected a non-negative size, got -1"));
  EXPECT_THAT(errorOf([] { data::samplers::RandomSampler(3, at::kFloat); }),
              HasSubstr("RandomSampler: expected an index dtype of Int or Long, got Float"));
  EXPECT_EQ(all_a.size(), all_b.size());
}

TEST(Example, NoTargetConvertsToItsData) {
  data::TensorExample e(at::ones({2}));
  at::Tensor& t = e;
  EXPECT_EQ(t.numel(), 2);
  data::Example<int, double> pair{1, 2.5};
  EXPECT_EQ(pair.data, 1);
  EXPECT_EQ(pair.target, 2.5);
}

}  // namespace
