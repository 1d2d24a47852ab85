// datasets::MNIST: small IDX files made here (plain and gzipped, and broken
// in every checked way), the real Fashion-MNIST test set, the memory peak of
// loading, and the stacked-batch fast path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/Parallel.h>

#include "c10/core/CPUAllocator.h"
#include "nn/data/data.h"
#include "tests/data/dataset_files.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::Bytes;
using ember_test::errorOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using torch::data::datasets::MNIST;

constexpr char kFashion[] = "/usr/share/datasets/fashion-mnist";

void write_set(const std::string& dir, const std::string& prefix, const Bytes& images,
               const Bytes& labels, bool gz) {
  if (gz) {
    ember_test::write_gz(dir + "/" + prefix + "-images-idx3-ubyte.gz", images);
    ember_test::write_gz(dir + "/" + prefix + "-labels-idx1-ubyte.gz", labels);
  } else {
    ember_test::write_file(dir + "/" + prefix + "-images-idx3-ubyte", images);
    ember_test::write_file(dir + "/" + prefix + "-labels-idx1-ubyte", labels);
  }
}

void expect_small_set(const MNIST& set, uint32_t count) {
  ASSERT_EQ(set.size().value(), count);
  const at::Tensor images = set.images();
  EXPECT_EQ(images.sizes(), (std::vector<int64_t>{count, 1, 28, 28}));
  EXPECT_EQ(images.scalar_type(), at::kFloat);
  EXPECT_EQ(set.targets().sizes(), (std::vector<int64_t>{count}));
  EXPECT_EQ(set.targets().scalar_type(), at::kLong);
  const float* px = images.data_ptr<float>();
  for (uint32_t n = 0; n < count; ++n) {
    for (uint32_t i = 0; i < 784; i += 97) {
      EXPECT_FLOAT_EQ(px[n * 784 + i], static_cast<float>((n * 7 + i) % 256) / 255.0f);
    }
    EXPECT_EQ(set.targets().data_ptr<int64_t>()[n], n % 10);
  }
}

TEST(MNIST, ReadsPlainFiles) {
  const std::string dir = ember_test::fresh_dir("mnist_plain");
  write_set(dir, "train", ember_test::idx_images(5), ember_test::idx_labels(5), false);
  MNIST set(dir, MNIST::Mode::kTrain);
  EXPECT_TRUE(set.is_train());
  expect_small_set(set, 5);
  torch::data::Example<> ex = set.get(3);
  EXPECT_EQ(ex.data.sizes(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(ex.target.dim(), 0);
  EXPECT_EQ(ex.target.item<int64_t>(), 3);
  EXPECT_TRUE(at::equal(ex.data, set.images()[3]));
}

TEST(MNIST, ReadsGzippedFilesOfTheTestMode) {
  const std::string dir = ember_test::fresh_dir("mnist_gz");
  write_set(dir, "t10k", ember_test::idx_images(1100), ember_test::idx_labels(1100), true);
  MNIST set(dir, MNIST::Mode::kTest);
  EXPECT_FALSE(set.is_train());
  expect_small_set(set, 1100);  // more than one decoding chunk
}

TEST(MNIST, ReadsAnEmptySet) {
  const std::string dir = ember_test::fresh_dir("mnist_empty");
  write_set(dir, "train", ember_test::idx_images(0), ember_test::idx_labels(0), false);
  MNIST set(dir);
  EXPECT_EQ(set.size().value(), 0u);
  EXPECT_EQ(set.images().sizes(), (std::vector<int64_t>{0, 1, 28, 28}));
}

TEST(MNIST, MissingFileNamesBothPaths) {
  const std::string dir = ember_test::fresh_dir("mnist_missing");
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr("MNIST: file not found"), HasSubstr(dir + "/train-images-idx3-ubyte"),
                    HasSubstr(dir + "/train-images-idx3-ubyte.gz")));
}

TEST(MNIST, TruncatedImagesNameTheFileAndTheSizes) {
  const std::string dir = ember_test::fresh_dir("mnist_truncated");
  Bytes images = ember_test::idx_images(3);
  images.resize(images.size() - 10);
  write_set(dir, "train", images, ember_test::idx_labels(3), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr("MNIST: " + dir + "/train-images-idx3-ubyte is truncated"),
                    HasSubstr("expected 2368 bytes of data, got 2358")));
}

TEST(MNIST, TruncatedGzipStreamIsTruncation) {
  const std::string dir = ember_test::fresh_dir("mnist_truncated_gz");
  write_set(dir, "train", ember_test::idx_images(3), ember_test::idx_labels(3), true);
  const std::string path = dir + "/train-images-idx3-ubyte.gz";
  Bytes gz = ember_test::read_file(path);
  gz.resize(gz.size() / 2);
  ember_test::write_file(path, gz);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr(path + " is truncated"), HasSubstr("expected 2368 bytes")));
}

TEST(MNIST, CorruptGzipDataIsAnError) {
  const std::string dir = ember_test::fresh_dir("mnist_corrupt_gz");
  write_set(dir, "train", ember_test::idx_images(3), ember_test::idx_labels(3), true);
  const std::string path = dir + "/train-images-idx3-ubyte.gz";
  Bytes gz = ember_test::read_file(path);
  for (size_t i = 20; i < gz.size() - 8; i += 7) gz[i] ^= 0x5a;  // after the gzip header
  ember_test::write_file(path, gz);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr("MNIST: cannot read " + path), HasSubstr("(corrupt gzip data?)")));
}

TEST(MNIST, TruncatedHeaderAndLabels) {
  const std::string dir = ember_test::fresh_dir("mnist_truncated_header");
  write_set(dir, "train", Bytes{0, 0, 8}, ember_test::idx_labels(3), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("is truncated: expected 16 bytes of data, got 3"));
  Bytes labels = ember_test::idx_labels(3);
  labels.pop_back();
  write_set(dir, "train", ember_test::idx_images(3), labels, false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr("train-labels-idx1-ubyte is truncated"),
                    HasSubstr("expected 11 bytes of data, got 10")));
}

TEST(MNIST, TrailingDataIsAnError) {
  const std::string dir = ember_test::fresh_dir("mnist_trailing");
  Bytes images = ember_test::idx_images(2);
  images.push_back(0);
  write_set(dir, "train", images, ember_test::idx_labels(2), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("train-images-idx3-ubyte has trailing data: expected exactly 1584 bytes"));
}

TEST(MNIST, WrongMagicNumbers) {
  const std::string dir = ember_test::fresh_dir("mnist_magic");
  // The labels file where the images should be.
  write_set(dir, "train", ember_test::idx_labels(20), ember_test::idx_labels(2), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr("train-images-idx3-ubyte has magic number 2049, expected 2051"),
                    HasSubstr("IDX file of images")));
  write_set(dir, "train", ember_test::idx_images(2), ember_test::idx_labels(2, 7), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("train-labels-idx1-ubyte has magic number 7, expected 2049"));
}

TEST(MNIST, WrongDimensions) {
  const std::string dir = ember_test::fresh_dir("mnist_dims");
  write_set(dir, "train", ember_test::idx_images(2, 32, 28), ember_test::idx_labels(2), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("holds images of 32x28 pixels, expected 28x28"));
}

TEST(MNIST, LabelCountMustMatchImageCount) {
  const std::string dir = ember_test::fresh_dir("mnist_counts");
  write_set(dir, "train", ember_test::idx_images(3), ember_test::idx_labels(4), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("train-labels-idx1-ubyte holds 4 labels but " + dir +
                        "/train-images-idx3-ubyte holds 3 images"));
}

TEST(MNIST, LabelOutOfRange) {
  const std::string dir = ember_test::fresh_dir("mnist_label");
  write_set(dir, "train", ember_test::idx_images(3), ember_test::idx_labels(3, 2049, {1, 12, 3}),
            true);
  EXPECT_THAT(
      errorOf([&] { MNIST set(dir); }),
      HasSubstr("train-labels-idx1-ubyte.gz holds the label 12, expected labels in [0, 9]"));
}

TEST(MNIST, GetOutOfRange) {
  const std::string dir = ember_test::fresh_dir("mnist_get");
  write_set(dir, "train", ember_test::idx_images(3), ember_test::idx_labels(3), false);
  MNIST set(dir);
  EXPECT_THAT(errorOf([&] { set.get(3); }),
              HasSubstr("MNIST: index 3 is out of range for a dataset of 3 examples"));
  EXPECT_THAT(errorOf([&] {
                set.get_stacked_batch(std::vector<size_t>{0, 5});
              }),
              HasSubstr("MNIST: index 5 is out of range"));
  EXPECT_THAT(errorOf([&] { set.get_stacked_batch(std::vector<size_t>{}); }),
              HasSubstr("expected at least one index in a batch request"));
}

TEST(MNIST, FashionMnistTestSet) {
  MNIST set(kFashion, MNIST::Mode::kTest);
  ASSERT_EQ(set.size().value(), 10000u);
  EXPECT_EQ(set.images().sizes(), (std::vector<int64_t>{10000, 1, 28, 28}));
  const std::vector<int64_t> first = {9, 2, 1, 1, 6, 1, 4, 6, 5, 7};
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(set.targets()[static_cast<int64_t>(i)].item<int64_t>(), first[i]) << i;
  }
  EXPECT_EQ(set.targets()[9999].item<int64_t>(), 5);
  EXPECT_EQ(set.targets().min().item<int64_t>(), 0);
  EXPECT_EQ(set.targets().max().item<int64_t>(), 9);
  EXPECT_EQ(set.targets().eq(3).sum().item<int64_t>(), 1000);  // 1000 per class
  EXPECT_FLOAT_EQ(set.images().min().item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(set.images().max().item<float>(), 1.0f);
  // Pixel (14, 14) of the first and last images, and the first image's sum.
  EXPECT_FLOAT_EQ(set.images()[0][0][14][14].item<float>(), 110.0f / 255.0f);
  EXPECT_FLOAT_EQ(set.images()[9999][0][14][14].item<float>(), 132.0f / 255.0f);
  EXPECT_NEAR(set.images()[0].sum().item<double>(), 33456.0 / 255.0, 1e-2);
}

TEST(MNIST, LoadingPeaksNearTheDecodedTensor) {
  c10::reset_cpu_allocator_peak();
  const int64_t before = c10::cpu_allocator_stats().bytes_in_use;
  MNIST set(kFashion, MNIST::Mode::kTest);
  const int64_t peak = c10::cpu_allocator_stats().peak_bytes - before;
  const int64_t images = 10000 * 784 * 4;
  const int64_t labels = 10000 * 8;
  // The output, the labels as bytes and int64, and one 784 KiB chunk.
  EXPECT_LE(peak, images + labels + 10000 + 1024 * 784 + 64 * 1024) << peak;
  EXPECT_GE(peak, images);
}

TEST(MNIST, StackedBatchEqualsStackOfExamples) {
  MNIST set(kFashion, MNIST::Mode::kTest);
  const std::vector<size_t> indices = {5, 0, 9999, 17, 5};
  auto generic = torch::data::transforms::Stack<>().apply_batch(set.get_batch(indices));
  torch::data::Example<> fast = set.get_stacked_batch(indices);
  EXPECT_TRUE(at::equal(fast.data, generic.data));
  EXPECT_TRUE(at::equal(fast.target, generic.target));

  // Through map(): Stack<> alone, and Normalize<> then Stack<>.
  auto stacked = MNIST(kFashion, MNIST::Mode::kTest).map(torch::data::transforms::Stack<>());
  torch::data::Example<> via_map = stacked.get_batch(indices);
  EXPECT_TRUE(at::equal(via_map.data, generic.data));
  auto normalized = MNIST(kFashion, MNIST::Mode::kTest)
                        .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                        .map(torch::data::transforms::Stack<>());
  torch::data::Example<> norm = normalized.get_batch(indices);
  at::Tensor expected = generic.data.sub(0.2860f).div(0.3530f);
  EXPECT_TRUE(at::allclose(norm.data, expected, 1e-6, 1e-6));
  EXPECT_TRUE(at::equal(norm.target, generic.target));
  // The generic path (a Lambda in the chain) gives the same batch.
  auto lambda =
      MNIST(kFashion, MNIST::Mode::kTest)
          .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
          .map(torch::data::transforms::Lambda<>([](torch::data::Example<> e) { return e; }))
          .map(torch::data::transforms::Stack<>());
  EXPECT_TRUE(at::equal(lambda.get_batch(indices).data, norm.data));
}

// A measurement (printed) with a loose bound: the best of 30 runs of a batch
// of 128 via the stacked path against 128 selects and one stack. The best
// run, not the mean, so that a busy machine does not make it flaky; the
// optimized figures are in docs/data.md. One OpenMP thread: on a loaded
// 2-core machine a parallel region can wait milliseconds for its second
// thread, which would measure the scheduler instead of the two paths.
TEST(MNIST, StackedBatchIsFasterThanPerExample) {
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  MNIST set(kFashion, MNIST::Mode::kTest);
  std::vector<size_t> indices(128);
  for (size_t i = 0; i < indices.size(); ++i) {
    indices[i] = (i * 7919) % 10000;
  }
  torch::data::transforms::Stack<> stack;
  const auto best_of = [](auto&& f) {
    double best = 1e300;
    for (int i = 0; i < 30; ++i) {
      const auto start = std::chrono::steady_clock::now();
      f();
      best = std::min(
          best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                    .count());
    }
    return best;
  };
  const double generic = best_of([&] { stack.apply_batch(set.get_batch(indices)); });
  const double fast = best_of([&] { set.get_stacked_batch(indices); });
  std::printf("MNIST batch of 128: per-example + Stack %.1f us, stacked %.1f us (%.1fx)\n", generic,
              fast, generic / fast);
  at::set_num_threads(threads);
  EXPECT_LT(fast, generic);
}

}  // namespace
