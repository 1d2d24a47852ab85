// The dataset readers against hostile files (issue 22): special files where a
// data file is expected, gzip streams cut before their trailer or followed by
// garbage, headers claiming more data than the file can hold, and readers
// asked for only the first N examples stopping there. See Note [Dataset file
// limits] in nn/data/datasets/file_reader.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "nn/data/data.h"
#include "nn/data/datasets/file_reader.h"
#include "tests/data/dataset_files.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::Bytes;
using ember_test::errorOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using torch::data::datasets::CIFAR10;
using torch::data::datasets::MNIST;

void write_set(const std::string& dir, const Bytes& images, const Bytes& labels, bool gz) {
  if (gz) {
    ember_test::write_gz(dir + "/train-images-idx3-ubyte.gz", images);
    ember_test::write_gz(dir + "/train-labels-idx1-ubyte.gz", labels);
  } else {
    ember_test::write_file(dir + "/train-images-idx3-ubyte", images);
    ember_test::write_file(dir + "/train-labels-idx1-ubyte", labels);
  }
}

// ---- special files: refused by name, never opened in a way that blocks ----

TEST(HostileFiles, FifoInPlaceOfAnMnistFileIsRefusedWithoutBlocking) {
  const std::string dir = ember_test::fresh_dir("hostile_fifo");
  ASSERT_EQ(mkfifo((dir + "/train-images-idx3-ubyte").c_str(), 0644), 0);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("MNIST: " + dir +
                        "/train-images-idx3-ubyte is a FIFO (named pipe), not a regular file"));
  // The reader itself, handed the FIFO's path, must not block either.
  EXPECT_THAT(errorOf([&] {
                torch::data::datasets::detail::GzipReader r("MNIST",
                                                            dir + "/train-images-idx3-ubyte");
              }),
              HasSubstr("it is a FIFO (named pipe), not a regular file"));
}

TEST(HostileFiles, DirectorySymlinkLoopAndDanglingLinkAreNamed) {
  const std::string dir = ember_test::fresh_dir("hostile_kinds");
  const std::string images = dir + "/train-images-idx3-ubyte";
  ASSERT_EQ(mkdir(images.c_str(), 0755), 0);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr(images + " is a directory, not a regular file"));
  ASSERT_EQ(rmdir(images.c_str()), 0);
  ASSERT_EQ(symlink("train-images-idx3-ubyte", images.c_str()), 0);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr(images + " is a symbolic link loop, not a regular file"));
  ASSERT_EQ(unlink(images.c_str()), 0);
  ASSERT_EQ(symlink("nowhere", images.c_str()), 0);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr(images + " is a symbolic link to a missing file"));
}

TEST(HostileFiles, UnreadableFileIsNamedWithItsReason) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const std::string dir = ember_test::fresh_dir("hostile_unreadable");
  write_set(dir, ember_test::idx_images(2), ember_test::idx_labels(2), false);
  ASSERT_EQ(chmod((dir + "/train-images-idx3-ubyte").c_str(), 0), 0);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr("cannot open " + dir + "/train-images-idx3-ubyte: Permission denied"));
}

TEST(HostileFiles, CifarFifoIsRefused) {
  const std::string dir = ember_test::fresh_dir("hostile_cifar_fifo");
  ASSERT_EQ(mkfifo((dir + "/test_batch.bin").c_str(), 0644), 0);
  EXPECT_THAT(errorOf([&] { CIFAR10 set(dir, CIFAR10::Mode::kTest); }),
              HasSubstr("CIFAR10: cannot read " + dir +
                        "/test_batch.bin: it is a FIFO (named pipe), not a regular file"));
}

// ---- gzip integrity ----

TEST(HostileGzip, StreamCutBeforeItsTrailerIsRefused) {
  const std::string dir = ember_test::fresh_dir("hostile_trailer");
  write_set(dir, ember_test::idx_images(3), ember_test::idx_labels(3), true);
  const std::string path = dir + "/train-images-idx3-ubyte.gz";
  Bytes gz = ember_test::read_file(path);
  gz.resize(gz.size() - 8);  // the CRC-32 and length: every data byte is still there
  ember_test::write_file(path, gz);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr(path + " is truncated: its gzip stream ends before its trailer"));
}

TEST(HostileGzip, WrongCrcIsRefused) {
  const std::string dir = ember_test::fresh_dir("hostile_crc");
  write_set(dir, ember_test::idx_images(3), ember_test::idx_labels(3), true);
  const std::string path = dir + "/train-images-idx3-ubyte.gz";
  Bytes gz = ember_test::read_file(path);
  gz[gz.size() - 8] ^= 1;
  ember_test::write_file(path, gz);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr("cannot read " + path), HasSubstr("incorrect data check")));
}

TEST(HostileGzip, TrailingGarbageIsRefusedAndAnotherMemberAccepted) {
  const std::string dir = ember_test::fresh_dir("hostile_garbage");
  write_set(dir, ember_test::idx_images(3), ember_test::idx_labels(3), true);
  const std::string path = dir + "/train-labels-idx1-ubyte.gz";
  Bytes gz = ember_test::read_file(path);
  Bytes with_garbage = gz;
  for (char c : std::string("garbage")) with_garbage.push_back(static_cast<unsigned char>(c));
  ember_test::write_file(path, with_garbage);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              HasSubstr(path + " has trailing data after its gzip stream"));

  // The labels split in two gzip members (as `cat a.gz b.gz` makes) read as one.
  const Bytes labels = ember_test::idx_labels(3);
  ember_test::write_gz(dir + "/a.gz", Bytes(labels.begin(), labels.begin() + 5));
  ember_test::write_gz(dir + "/b.gz", Bytes(labels.begin() + 5, labels.end()));
  Bytes two = ember_test::read_file(dir + "/a.gz");
  const Bytes b = ember_test::read_file(dir + "/b.gz");
  two.insert(two.end(), b.begin(), b.end());
  ember_test::write_file(path, two);
  MNIST set(dir);
  EXPECT_EQ(set.size().value(), 3u);
}

// ---- sizes from headers: checked against the file before allocating ----

TEST(HostileSizes, HugeCountInASmallGzipIsRefusedBeforeAllocating) {
  const std::string dir = ember_test::fresh_dir("hostile_bomb");
  Bytes images = ember_test::idx_images(0);
  images[4] = 0x7f;  // count 0x7f000000 images: 1.6 TB of floats
  write_set(dir, images, ember_test::idx_labels(0), true);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr(dir + "/train-images-idx3-ubyte.gz claims 2130706432 images"),
                    HasSubstr("but a gzip file of"), HasSubstr("decompresses to at most")));
}

TEST(HostileSizes, HugeCountInAPlainFileIsTruncationNotOutOfMemory) {
  const std::string dir = ember_test::fresh_dir("hostile_plain_count");
  Bytes images = ember_test::idx_images(1);
  images[4] = 0x7f;
  write_set(dir, images, ember_test::idx_labels(1), false);
  EXPECT_THAT(errorOf([&] { MNIST set(dir); }),
              AllOf(HasSubstr(dir + "/train-images-idx3-ubyte is truncated: expected "
                                    "1670473843488 bytes of data, got 800"),
                    HasSubstr("its header claims 2130706433 images")));
}

// ---- limits: decode only what is needed ----

TEST(HostileSizes, LimitStopsDecodingAfterTheExamplesAskedFor) {
  const std::string dir = ember_test::fresh_dir("hostile_limit");
  // The header claims 5000 images, only 10 are there, then the stream ends
  // without a trailer: fine for the first 10, an error for all.
  Bytes images = ember_test::idx_images(10);
  images[6] = 0x13;
  images[7] = 0x88;  // 5000
  Bytes labels = ember_test::idx_labels(5000);
  write_set(dir, images, labels, true);
  const std::string path = dir + "/train-images-idx3-ubyte.gz";
  Bytes gz = ember_test::read_file(path);
  gz.resize(gz.size() - 8);
  ember_test::write_file(path, gz);
  MNIST first(dir, MNIST::Mode::kTrain, 10);
  EXPECT_EQ(first.size().value(), 10u);
  EXPECT_EQ(first.targets().size(0), 10);
  EXPECT_FLOAT_EQ(first.images()[9][0][0][1].item<float>(), ((9 * 7 + 1) % 256) / 255.0f);
  EXPECT_THAT(errorOf([&] { MNIST all(dir); }),
              HasSubstr(path + " claims 5000 images (3920016 bytes of data), but a gzip file"));
  EXPECT_THAT(errorOf([&] { MNIST bad(dir, MNIST::Mode::kTrain, -1); }),
              HasSubstr("the limit of examples must be >= 0"));
}

TEST(HostileSizes, CifarLimitOpensOnlyTheFilesItNeeds) {
  const std::string dir = ember_test::fresh_dir("hostile_cifar_limit");
  ember_test::write_file(dir + "/data_batch_1.bin", ember_test::cifar_records(4));
  CIFAR10 set(dir, CIFAR10::Mode::kTrain, 3);  // data_batch_2..5 do not exist
  EXPECT_EQ(set.size().value(), 3u);
  EXPECT_THAT(errorOf([&] { CIFAR10 all(dir); }),
              HasSubstr("cannot read " + dir + "/data_batch_2.bin: No such file"));
}

}  // namespace
