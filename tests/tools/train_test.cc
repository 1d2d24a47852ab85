// The training job of //tools:train (tools/train/trainer.h): an end-to-end run
// on a slice of the real Fashion-MNIST, checkpoints and resume, CIFAR-10
// folders, and every way a user can feed it bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"
#include "tools/train/trainer.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using tools::train::Config;

const char* kFashion = "/usr/share/datasets/fashion-mnist";

// Two threads, except under the sanitizers, whose configs ask for one OpenMP
// thread (the trainer sets the count itself, so OMP_NUM_THREADS does not
// apply): Debian's libgomp is not instrumented for TSan (false races), and
// LeakSanitizer crashes at exit while libgomp's workers are parked (.bazelrc).
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int64_t kThreads = 1;
#else
constexpr int64_t kThreads = 2;
#endif

std::string temp_dir() {
  const char* t = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(t != nullptr ? t : "/tmp") + "/train-XXXXXX";
  EXPECT_NE(mkdtemp(dir.data()), nullptr);
  return dir;
}

Config quick() {
  Config c;
  c.epochs = 1;
  c.train_samples = 6000;
  c.test_samples = 2000;
  c.progress = Config::Progress::kQuiet;
  c.threads = kThreads;
  c.data = kFashion;
  return c;
}

TEST(Train, MlpLearnsFashionMnistSliceWithinSeconds) {
  Config c = quick();
  std::ostringstream out;
  tools::train::Result r = tools::train::train(c, out);
  ASSERT_EQ(r.epochs.size(), 1u);
  // 6,000 images, one epoch: an untrained model scores 10%; this one > 75%.
  EXPECT_GT(r.epochs[0].test_accuracy, 0.75) << out.str();
  EXPECT_LT(r.epochs[0].train_loss, 1.2);
  EXPECT_EQ(r.parameters, 784 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10);
  EXPECT_THAT(out.str(), HasSubstr("epoch 1/1: train loss "));
  EXPECT_THAT(out.str(), HasSubstr("test accuracy"));
  // The per-epoch line only (not a terminal): no carriage returns.
  EXPECT_EQ(out.str().find('\r'), std::string::npos);
  EXPECT_EQ(r.dataset_bytes, (6000 + 2000) * (784 * 4 + 8));
}

// --memory-report (Note [What --memory-report measures]): each category
// is what the allocator counted while it was made, so it equals the bytes
// of the tensors it made; a missed reset, a wrong mark or a category read at
// the wrong moment breaks an equality.
TEST(Train, MemoryReportMeasuresEachCategory) {
  Config c = quick();
  c.train_samples = 1000;
  c.test_samples = 500;
  c.batch_size = 100;
  c.memory_report = true;
  std::ostringstream out;
  const tools::train::Result r = tools::train::train(c, out);
  const tools::train::MemoryReport& m = r.memory;
  ASSERT_TRUE(m.measured);
  const int64_t params = 4 * (784 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10);
  EXPECT_EQ(m.dataset, r.dataset_bytes);
  EXPECT_EQ(m.parameters, params);
  EXPECT_EQ(m.gradients, params);
  EXPECT_EQ(m.optimizer_state, params);  // SGD's momentum buffers
  // Forward keeps the three layers' inputs and outputs of a batch of 100:
  // at least the outputs (512 + 256 + 10 floats per sample).
  EXPECT_GE(m.activations, 100 * (512 + 256 + 10) * 4);
  EXPECT_LT(m.activations, 100 * 4 * 4 * (784 + 512 + 256 + 10));
  EXPECT_GT(m.other_at_peak(), 0);  // the batch in flight, at least
  EXPECT_THAT(out.str(), HasSubstr("  parameters and buffers                         2.04 MiB\n"));
  EXPECT_THAT(out.str(), HasSubstr("  optimizer state                                2.04 MiB\n"));
  EXPECT_THAT(out.str(), HasSubstr("Ember CPU memory summary"));
  // Adam keeps two moments per parameter (and a step count per tensor).
  c.optimizer = "adam";
  c.lr = 0.001;
  std::ostringstream adam_out;
  const tools::train::Result adam = tools::train::train(c, adam_out);
  EXPECT_GE(adam.memory.optimizer_state, 2 * params);
  EXPECT_LE(adam.memory.optimizer_state, 2 * params + 6 * 64);
  // Off unless asked.
  c.memory_report = false;
  std::ostringstream plain;
  EXPECT_FALSE(tools::train::train(c, plain).memory.measured);
  EXPECT_THAT(plain.str(), testing::Not(HasSubstr("memory report")));
}

TEST(Train, AdamAndCnnRun) {
  Config c = quick();
  c.model = "cnn";
  c.optimizer = "adam";
  c.lr = 0.001;
  c.train_samples = 1024;
  c.test_samples = 500;
  c.batch_size = 64;
  std::ostringstream out;
  tools::train::Result r = tools::train::train(c, out);
  EXPECT_GT(r.epochs[0].test_accuracy, 0.5) << out.str();
  EXPECT_EQ(r.parameters, 32 * 9 + 32 + 64 * 32 * 9 + 64 + 64 * 7 * 7 * 10 + 10);
}

TEST(Train, ResumeContinuesExactlyAsAnUninterruptedRun) {
  const std::string dir = temp_dir();
  Config c = quick();
  c.train_samples = 2000;
  c.test_samples = 500;
  c.epochs = 2;
  std::ostringstream out;
  const tools::train::Result straight = tools::train::train(c, out);

  Config first = c;
  first.epochs = 1;
  first.save = dir + "/ckpt.safetensors";
  tools::train::train(first, out);
  Config second = c;
  second.resume = first.save;
  second.metrics = dir + "/metrics.csv";
  const tools::train::Result resumed = tools::train::train(second, out);
  EXPECT_THAT(out.str(), HasSubstr("resumed from " + first.save + " after epoch 1"));
  ASSERT_EQ(resumed.epochs.size(), 2u);
  for (int e = 0; e < 2; ++e) {
    EXPECT_DOUBLE_EQ(resumed.epochs[e].train_loss, straight.epochs[e].train_loss) << e;
    EXPECT_DOUBLE_EQ(resumed.epochs[e].test_accuracy, straight.epochs[e].test_accuracy) << e;
  }
  std::ifstream csv(second.metrics);
  std::string header, row1, row2, extra;
  std::getline(csv, header);
  std::getline(csv, row1);
  std::getline(csv, row2);
  EXPECT_EQ(header, "epoch,train_loss,test_accuracy,epoch_seconds,samples_per_second");
  EXPECT_EQ(row1.substr(0, 2), "1,");
  EXPECT_EQ(row2.substr(0, 2), "2,");
  EXPECT_FALSE(std::getline(csv, extra));

  // The checkpoint is a plain safetensors file with the model's state.
  torch::safetensors::File f = torch::safetensors::load(first.save);
  EXPECT_EQ(f.metadata.at("model"), "mlp");
  EXPECT_EQ(f.metadata.at("epochs_done"), "1");
  bool found = false;
  for (auto& [name, t] : f.tensors) {
    if (name == "model.1.weight") {
      found = true;
      EXPECT_EQ(t.sizes(), (std::vector<int64_t>{512, 784}));
    }
  }
  EXPECT_TRUE(found);
}

TEST(Train, ResumeRefusesACheckpointOfAnotherModel) {
  const std::string dir = temp_dir();
  Config c = quick();
  c.train_samples = 256;
  c.test_samples = 100;
  c.save = dir + "/mlp.safetensors";
  std::ostringstream out;
  tools::train::train(c, out);

  Config cnn = c;
  cnn.save.clear();
  cnn.model = "cnn";
  cnn.resume = c.save;
  cnn.epochs = 2;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(cnn, out); }),
              HasSubstr("was written with --model=mlp, but this run uses cnn"));

  // Same model kind, a tensor of the wrong shape (as from another data set).
  torch::safetensors::File f = torch::safetensors::load(c.save);
  for (auto& [name, t] : f.tensors) {
    if (name == "model.1.weight") t = at::zeros({512, 100});
  }
  const std::string bad = dir + "/bad.safetensors";
  torch::safetensors::save(bad, f.tensors, f.metadata);
  Config resume = c;
  resume.save.clear();
  resume.resume = bad;
  resume.epochs = 2;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(resume, out); }),
              HasSubstr("tensor '1.weight' has shape [512, 100] but the module expects "
                        "[512, 784]"));

  // Not a checkpoint at all.
  const std::string junk = dir + "/junk.safetensors";
  std::ofstream(junk) << "definitely not safetensors";
  resume.resume = junk;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(resume, out); }),
              HasSubstr(junk));
}

TEST(Train, BadDataFolders) {
  const std::string dir = temp_dir();
  Config c = quick();
  c.data = dir + "/missing";
  std::ostringstream out;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("train-images-idx3-ubyte"));

  // A truncated image file.
  const std::string cut = dir + "/cut";
  ASSERT_EQ(mkdir(cut.c_str(), 0755), 0);
  {
    std::ofstream images(cut + "/train-images-idx3-ubyte", std::ios::binary);
    const unsigned char header[16] = {0, 0, 8, 3, 0, 0, 0, 10, 0, 0, 0, 28, 0, 0, 0, 28};
    images.write(reinterpret_cast<const char*>(header), 16);
    images << std::string(100, '\0');  // 10 images need 7840 bytes
    std::ofstream labels(cut + "/train-labels-idx1-ubyte", std::ios::binary);
    const unsigned char label_header[8] = {0, 0, 8, 1, 0, 0, 0, 10};
    labels.write(reinterpret_cast<const char*>(label_header), 8);
    labels << std::string(10, '\1');
  }
  c.data = cut;
  const std::string message = ember_test::errorOf([&] { tools::train::train(c, out); });
  EXPECT_THAT(message, HasSubstr("train-images-idx3-ubyte"));
  EXPECT_THAT(message, HasSubstr("is truncated: expected 7856 bytes"));
}

void write_cifar_batch(const std::string& path, int records, int seed) {
  std::ofstream f(path, std::ios::binary);
  for (int r = 0; r < records; ++r) {
    const int label = (r + seed) % 10;
    f.put(static_cast<char>(label));
    // Each class a different brightness, so that there is something to learn.
    for (int i = 0; i < 3072; ++i) f.put(static_cast<char>(label * 25 + (i * 7 + r) % 5));
  }
}

TEST(Train, Cifar10FolderTrainsTheCnnOnThreeChannels) {
  const std::string dir = temp_dir();
  for (int b = 1; b <= 5; ++b) write_cifar_batch(dir + "/data_batch_" + std::to_string(b) + ".bin", 40, b);
  write_cifar_batch(dir + "/test_batch.bin", 50, 0);
  Config c = quick();
  c.data = dir;
  c.model = "cnn";
  c.batch_size = 20;
  c.lr = 0.01;
  c.epochs = 3;
  std::ostringstream out;
  tools::train::Result r = tools::train::train(c, out);
  EXPECT_THAT(out.str(), HasSubstr("200 images [3, 32, 32]"));
  EXPECT_EQ(r.parameters, 32 * 27 + 32 + 64 * 32 * 9 + 64 + 64 * 8 * 8 * 10 + 10);
  EXPECT_GT(r.epochs.back().test_accuracy, 0.5);
}

TEST(Train, BadFlagValues) {
  std::ostringstream out;
  Config c = quick();
  c.model = "resnet";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--model must be mlp or cnn, got 'resnet'"));
  c = quick();
  c.optimizer = "rmsprop";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--optimizer must be sgd or adam, got 'rmsprop'"));
  c = quick();
  c.epochs = 0;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--epochs must be at least 1, got 0"));
  c = quick();
  c.batch_size = -5;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--batch_size must be at least 1, got -5"));
  c = quick();
  c.lr = -0.1;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--lr must be a positive number, got -0.1"));
  c = quick();
  c.device = "tpu";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--device must be cpu or cuda, got 'tpu'"));
  c = quick();
  c.device = "cuda";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              AllOf(HasSubstr("--device=cuda, but "), HasSubstr("use --device=cpu")));
  c.model = "cnn";  // its convolutions and pools run on CUDA too (core decompositions)
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              AllOf(HasSubstr("--device=cuda, but "), HasSubstr("use --device=cpu")));
  c.model = "mlp";
  // Several processes on CUDA (NCCL, a GPU each): checked before any
  // rendezvous; without a device the device error comes first.
  ::setenv("WORLD_SIZE", "2", 1);
  ::setenv("RANK", "1", 1);
  ::setenv("LOCAL_WORLD_SIZE", "2", 1);
  const std::string several = ember_test::errorOf([&] { tools::train::train(c, out); });
  ::unsetenv("WORLD_SIZE");
  ::unsetenv("RANK");
  ::unsetenv("LOCAL_WORLD_SIZE");
  if (!torch::cuda::is_available()) {
    EXPECT_THAT(several, AllOf(HasSubstr("--device=cuda, but "), HasSubstr("use --device=cpu")));
  } else if (torch::cuda::device_count() < 2) {
    EXPECT_THAT(several, HasSubstr("--device=cuda with 2 processes on this machine needs a GPU "
                                   "for each (NCCL runs one rank per GPU), but it has 1"));
  }
  c.memory_report = true;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--memory-report measures the CPU allocator"));
  c = quick();
  c.lr = 1e6;  // diverges
  c.train_samples = 512;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("lower --lr"));
}

// ---- issue 22: hostile flag values, outputs, checkpoints and data folders ----

TEST(TrainHostile, FlagValuesOutOfRangeAreRefusedAtValidation) {
  std::ostringstream out;
  Config c = quick();
  c.threads = 100000;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--threads must be in [1, 1024] (or 0 for every core), got 100000"));
  c.threads = (int64_t{1} << 32) + 1;  // was cut to int: 1 thread
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("got 4294967297"));
  c = quick();
  c.lr = 1e300;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--lr must be at most 1e+06"));
  EXPECT_TRUE(out.str().empty()) << out.str();  // nothing ran
}

TEST(TrainHostile, HugeBatchSizeTrainsOneBatch) {
  Config c = quick();
  c.train_samples = 64;
  c.test_samples = 32;
  c.batch_size = INT64_MAX;  // (n + b - 1) / b overflowed
  std::ostringstream out;
  tools::train::Result r = tools::train::train(c, out);
  EXPECT_EQ(r.epochs.size(), 1u);
  EXPECT_THAT(out.str(), HasSubstr("training mlp"));
}

TEST(TrainHostile, UnwritableOutputsFailBeforeTraining) {
  const std::string dir = temp_dir();
  std::ostringstream out;
  Config c = quick();
  c.metrics = dir + "/no/such/folder/m.csv";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--metrics: cannot create a temporary file next to '" + c.metrics +
                        "': No such file or directory"));
  EXPECT_EQ(out.str().find("epoch 1/1"), std::string::npos) << out.str();
  c = quick();
  c.metrics = "/dev/full";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--metrics '/dev/full' is a character device, not a regular file"));
  c = quick();
  c.plot = dir;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--plot '" + dir + "' is a directory, not a regular file"));
  c = quick();
  c.save = dir + "/missing/ckpt.safetensors";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("--save: cannot create a temporary file next to"));
  EXPECT_EQ(out.str().find("epoch 1/1"), std::string::npos) << out.str();
}

// A 1-epoch checkpoint to tamper with.
struct Checkpoint {
  std::string dir;
  Config config;
  torch::safetensors::File file;
};

Checkpoint one_epoch(const std::string& optimizer) {
  Checkpoint k;
  k.dir = temp_dir();
  k.config = quick();
  k.config.train_samples = 256;
  k.config.test_samples = 100;
  k.config.optimizer = optimizer;
  k.config.save = k.dir + "/ckpt.safetensors";
  std::ostringstream out;
  tools::train::train(k.config, out);
  k.file = torch::safetensors::load(k.config.save);
  k.config.save.clear();
  k.config.epochs = 2;
  return k;
}

std::string resume_error(Checkpoint& k, const std::string& name) {
  k.config.resume = k.dir + "/" + name + ".safetensors";
  torch::safetensors::save(k.config.resume, k.file.tensors, k.file.metadata);
  std::ostringstream out;
  return ember_test::errorOf([&] { tools::train::train(k.config, out); });
}

TEST(TrainHostile, CheckpointContentsAreValidatedNamingTheTensor) {
  Checkpoint k = one_epoch("adam");
  // Tampering clones the tensor it changes: `good` shares the others.
  const torch::safetensors::File good = k.file;
  auto poison = [](at::Tensor& t, int64_t index, float value) {
    t = t.clone();
    t.data_ptr<float>()[index] = value;
  };
  for (auto& [name, t] : k.file.tensors) {
    if (name == "model.1.bias") poison(t, 3, std::nanf(""));
  }
  EXPECT_THAT(resume_error(k, "nan"),
              HasSubstr("tensor 'model.1.bias' holds the non-finite value nan (element 3)"));
  k.file = good;
  for (auto& [name, t] : k.file.tensors) {
    if (name == "optimizer.0.2.exp_avg") poison(t, 0, INFINITY);
  }
  EXPECT_THAT(resume_error(k, "inf"),
              HasSubstr("tensor 'optimizer.0.2.exp_avg' holds the non-finite value inf"));
  k.file = good;
  for (auto& [name, t] : k.file.tensors) {
    if (name == "optimizer.0.0.step") t = at::scalar_tensor(INT64_MAX, at::kLong);
  }
  EXPECT_THAT(resume_error(k, "step"),
              HasSubstr("tensor 'optimizer.0.0.step' holds the step count 9223372036854775807, "
                        "expected one in [1, 2^53]"));
  k.file = good;
  for (auto& [name, t] : k.file.tensors) {
    if (name == "optimizer.0.1.exp_avg_sq") poison(t, 0, -1);
  }
  EXPECT_THAT(resume_error(k, "negative"),
              HasSubstr("tensor 'optimizer.0.1.exp_avg_sq' holds the negative value -1"));
  // One parameter's state missing, then all of it.
  k.file = good;
  auto drop = [&](const std::string& prefix) {
    std::vector<std::pair<std::string, at::Tensor>> kept;
    for (auto& nt : k.file.tensors) {
      if (nt.first.rfind(prefix, 0) != 0) kept.push_back(nt);
    }
    k.file.tensors = kept;
  };
  drop("optimizer.0.3.");
  EXPECT_THAT(resume_error(k, "partial"),
              HasSubstr("has no tensor 'optimizer.0.3.exp_avg' (the adam state of parameter 3)"));
  drop("optimizer.");
  EXPECT_THAT(resume_error(k, "stateless"),
              HasSubstr("has no tensor 'optimizer.0.0.exp_avg'"));
  // A name with a NUL is shown escaped, in full.
  k.file = good;
  k.file.tensors.emplace_back(std::string("evil\0name", 9), at::zeros({1}));
  EXPECT_THAT(resume_error(k, "nul"), HasSubstr("holds an unexpected tensor 'evil\\x00name'"));
}

TEST(TrainHostile, CheckpointHistoryAndEpochCountAreValidated) {
  Checkpoint k = one_epoch("sgd");
  const torch::safetensors::File good = k.file;
  k.file.metadata["history"] = "1,0.5,7.5,1.0,100;";  // 750% accuracy
  EXPECT_THAT(resume_error(k, "history"),
              HasSubstr("has an impossible 'history' entry 1: epoch 1, train loss 0.5, test "
                        "accuracy 7.5"));
  k.file = good;
  k.file.metadata["history"] = "3,0.5,0.5,1.0,100;";
  EXPECT_THAT(resume_error(k, "epoch"), HasSubstr("impossible 'history' entry 1: epoch 3"));
  // epochs_done >= --epochs: nothing to train, and --save would be skipped.
  k.file = good;
  k.config.epochs = 1;
  k.config.save = k.dir + "/again.safetensors";
  EXPECT_THAT(resume_error(k, "done"),
              HasSubstr("has already done 1 epochs, and --epochs=1 is the total to reach, so "
                        "nothing is left to train"));
  // The SGD state of a parameter missing.
  k.file = good;
  k.config.epochs = 2;
  k.config.save.clear();
  std::vector<std::pair<std::string, at::Tensor>> kept;
  for (auto& nt : k.file.tensors) {
    if (nt.first != "optimizer.0.5.momentum_buffer") kept.push_back(nt);
  }
  k.file.tensors = kept;
  EXPECT_THAT(resume_error(k, "sgd"),
              HasSubstr("has no tensor 'optimizer.0.5.momentum_buffer' (the sgd state of "
                        "parameter 5)"));
}

TEST(TrainHostile, SpecialFilesAndEmptyTestSetsGiveClearErrors) {
  const std::string dir = temp_dir();
  std::ostringstream out;
  // A FIFO named like a CIFAR file (probed even for MNIST data) must not block.
  ASSERT_EQ(mkfifo((dir + "/data_batch_1.bin").c_str(), 0644), 0);
  Config c = quick();
  c.data = dir;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("data_batch_1.bin: it is a FIFO (named pipe), not a regular file"));
  // --resume from a FIFO.
  c = quick();
  c.resume = dir + "/data_batch_1.bin";
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("is a FIFO (named pipe), not a regular file"));
  // An empty test set: an error, not "test accuracy 0.00%".
  const std::string empty = dir + "/empty";
  ASSERT_EQ(mkdir(empty.c_str(), 0755), 0);
  write_cifar_batch(empty + "/data_batch_1.bin", 20, 0);
  for (int b = 2; b <= 5; ++b) write_cifar_batch(empty + "/data_batch_" + std::to_string(b) + ".bin", 0, 0);
  write_cifar_batch(empty + "/test_batch.bin", 0, 0);
  c = quick();
  c.data = empty;
  EXPECT_THAT(ember_test::errorOf([&] { tools::train::train(c, out); }),
              HasSubstr("the test set in '" + empty + "' is empty"));
}

}  // namespace
