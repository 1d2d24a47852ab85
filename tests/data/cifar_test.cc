// datasets::CIFAR10: records made here; label range, truncation, missing files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "nn/data/data.h"
#include "tests/data/dataset_files.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::Bytes;
using ember_test::errorOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using torch::data::datasets::CIFAR10;

void write_train(const std::string& dir, uint32_t per_file) {
  for (uint32_t f = 0; f < 5; ++f) {
    ember_test::write_file(dir + "/data_batch_" + std::to_string(f + 1) + ".bin",
                           ember_test::cifar_records(per_file, f * per_file));
  }
}

TEST(CIFAR10, ReadsTheFiveTrainingFilesInOrder) {
  const std::string dir = ember_test::fresh_dir("cifar_train");
  write_train(dir, 60);  // 60 records: more than one chunk in all
  CIFAR10 set(dir);
  EXPECT_TRUE(set.is_train());
  ASSERT_EQ(set.size().value(), 300u);
  EXPECT_EQ(set.images().sizes(), (std::vector<int64_t>{300, 3, 32, 32}));
  EXPECT_EQ(set.images().scalar_type(), at::kFloat);
  EXPECT_EQ(set.targets().scalar_type(), at::kLong);
  for (int64_t n : {0, 59, 60, 151, 299}) {
    EXPECT_EQ(set.targets()[n].item<int64_t>(), (n * 3) % 10) << n;
    for (int64_t i : {0, 1023, 1024, 2047, 3071}) {
      const int64_t c = i / 1024, y = (i % 1024) / 32, x = i % 32;
      EXPECT_FLOAT_EQ(set.images()[n][c][y][x].item<float>(),
                      static_cast<float>((n + i) % 256) / 255.0f)
          << n << " " << i;
    }
  }
  torch::data::Example<> ex = set.get(151);
  EXPECT_EQ(ex.data.sizes(), (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(ex.target.item<int64_t>(), 3);
  torch::data::Example<> batch = set.get_stacked_batch(std::vector<size_t>{151, 2});
  EXPECT_TRUE(at::equal(batch.data[0], ex.data));
  EXPECT_EQ(batch.target[1].item<int64_t>(), 6);
  EXPECT_THAT(errorOf([&] { set.get(300); }),
              HasSubstr("CIFAR10: index 300 is out of range for a dataset of 300 examples"));
}

TEST(CIFAR10, ReadsTheTestFile) {
  const std::string dir = ember_test::fresh_dir("cifar_test");
  ember_test::write_file(dir + "/test_batch.bin", ember_test::cifar_records(7));
  CIFAR10 set(dir, CIFAR10::Mode::kTest);
  EXPECT_FALSE(set.is_train());
  EXPECT_EQ(set.size().value(), 7u);
  EXPECT_FLOAT_EQ(set.images()[6][2][31][31].item<float>(), ((6 + 3071) % 256) / 255.0f);
}

TEST(CIFAR10, NormalizedStackedBatchEqualsThePerExamplePath) {
  const std::string dir = ember_test::fresh_dir("cifar_normalize");
  ember_test::write_file(dir + "/test_batch.bin", ember_test::cifar_records(9));
  namespace t = torch::data::transforms;
  const t::Normalize<> normalize({0.49, 0.48, 0.45}, {0.25, 0.24, 0.26});
  auto fast = CIFAR10(dir, CIFAR10::Mode::kTest).map(normalize).map(t::Stack<>());
  auto generic = CIFAR10(dir, CIFAR10::Mode::kTest)
                     .map(normalize)
                     .map(t::Lambda<>([](torch::data::Example<> e) { return e; }))
                     .map(t::Stack<>());
  const std::vector<size_t> indices = {8, 0, 4};
  torch::data::Example<> a = fast.get_batch(indices);
  torch::data::Example<> b = generic.get_batch(indices);
  EXPECT_EQ(a.data.sizes(), (std::vector<int64_t>{3, 3, 32, 32}));
  EXPECT_TRUE(at::equal(a.data, b.data));
  EXPECT_TRUE(at::equal(a.target, b.target));
  // Channel 1 of example 0 (index 8), pixel 0: ((8 + 1024) % 256 / 255 - 0.48) / 0.24.
  EXPECT_NEAR(a.data[0][1][0][0].item<float>(), ((8.0 / 255.0) - 0.48) / 0.24, 1e-5);
}

TEST(CIFAR10, MissingFile) {
  const std::string dir = ember_test::fresh_dir("cifar_missing");
  ember_test::write_file(dir + "/data_batch_1.bin", ember_test::cifar_records(1));
  EXPECT_THAT(errorOf([&] { CIFAR10 set(dir); }),
              AllOf(HasSubstr("CIFAR10: cannot read " + dir + "/data_batch_2.bin"),
                    HasSubstr("No such file")));
}

TEST(CIFAR10, TruncatedRecord) {
  const std::string dir = ember_test::fresh_dir("cifar_truncated");
  Bytes records = ember_test::cifar_records(2);
  records.resize(records.size() - 100);
  ember_test::write_file(dir + "/test_batch.bin", records);
  EXPECT_THAT(
      errorOf([&] { CIFAR10 set(dir, CIFAR10::Mode::kTest); }),
      AllOf(HasSubstr("CIFAR10: " + dir + "/test_batch.bin is truncated"),
            HasSubstr("expected 6146 bytes (a whole number of 3073-byte records), got 6046")));
}

TEST(CIFAR10, LabelOutOfRange) {
  const std::string dir = ember_test::fresh_dir("cifar_label");
  ember_test::write_file(dir + "/test_batch.bin", ember_test::cifar_records(3, 0, {1, 10, 2}));
  EXPECT_THAT(errorOf([&] { CIFAR10 set(dir, CIFAR10::Mode::kTest); }),
              HasSubstr("test_batch.bin holds the label 10 in records 0..2, expected labels in "
                        "[0, 9]"));
}

}  // namespace
