// Trains the Fashion-MNIST MLP (784-64-10, ReLU, log-softmax, SGD) for 300
// steps on the npu and on the CPU from the same seed, and checks that every
// step's loss agrees to float tolerance and that the model learned. The
// images come from Debian's dataset-fashion-mnist package (Ember's ./bazelw
// installs it); only the first 9,600 are decoded, and training takes a few
// seconds. The npu's kernels and its fallback carry all of it: mm, add,
// relu, sum and threshold_backward natively, log_softmax, nll_loss, their
// backwards and the optimizer's in-place updates through the CPU fallback.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/native/CPUFallback.h>
#include <torch/autograd.h>

#include "npu_test.h"

namespace {

const char* kDataRoot = "/usr/share/datasets/fashion-mnist";
constexpr int64_t kImages = 9600;
constexpr int64_t kBatch = 64;
constexpr int kSteps = 300;
constexpr int64_t kHidden = 64;
constexpr double kLearningRate = 0.1;

uint32_t big_endian(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The first `count` items of a gzipped IDX file: checks the magic number and
// the item count in its header, and returns the items' bytes.
std::vector<unsigned char> read_idx(const std::string& name, uint32_t magic, size_t header,
                                    int64_t count, size_t item_bytes) {
  const std::string path = std::string(kDataRoot) + "/" + name;
  gzFile f = gzopen(path.c_str(), "rb");
  TORCH_CHECK(f != nullptr, "cannot open ", path,
              "; install Debian's dataset-fashion-mnist (Ember's ./bazelw does).");
  std::vector<unsigned char> head(header);
  std::vector<unsigned char> items(static_cast<size_t>(count) * item_bytes);
  const bool ok = gzread(f, head.data(), static_cast<unsigned>(header)) == int(header) &&
                  gzread(f, items.data(), static_cast<unsigned>(items.size())) ==
                      int(items.size());
  gzclose(f);
  TORCH_CHECK(ok, path, ": shorter than ", count, " items");
  TORCH_CHECK(big_endian(head.data()) == magic, path, ": magic ", big_endian(head.data()),
              ", expected ", magic);
  TORCH_CHECK(big_endian(head.data() + 4) >= count, path, ": fewer than ", count, " items");
  return items;
}

struct Data {
  at::Tensor images;  // [kImages, 784] float, normalized
  at::Tensor labels;  // [kImages] long
};

const Data& fashion_mnist() {
  static const Data data = [] {
    std::vector<unsigned char> pixels =
        read_idx("train-images-idx3-ubyte.gz", 2051, 16, kImages, 28 * 28);
    std::vector<unsigned char> labels = read_idx("train-labels-idx1-ubyte.gz", 2049, 8, kImages, 1);
    at::Tensor x = at::from_blob(pixels.data(), {kImages, 28 * 28}, at::kByte).to(at::kFloat);
    at::Tensor y = at::from_blob(labels.data(), {kImages}, at::kByte).to(at::kLong);
    return Data{(x / 255 - 0.2860) / 0.3530, y};
  }();
  return data;
}

// [doc:train]
// The losses of kSteps SGD steps of the MLP on `device`, from seed 0.
std::vector<float> train(const c10::Device& device) {
  const at::TensorOptions options = at::TensorOptions(device);
  at::manual_seed(0);  // the npu's generator gives the CPU's numbers
  std::vector<at::Tensor> params = {
      (at::randn({28 * 28, kHidden}, options) * std::sqrt(2.0 / (28 * 28))).requires_grad_(),
      at::zeros({kHidden}, options).requires_grad_(),
      (at::randn({kHidden, 10}, options) * std::sqrt(1.0 / kHidden)).requires_grad_(),
      at::zeros({10}, options).requires_grad_()};
  const Data& data = fashion_mnist();
  std::vector<float> losses;
  for (int step = 0; step < kSteps; ++step) {
    const int64_t start = (step * kBatch) % kImages;
    at::Tensor x = data.images.narrow(0, start, kBatch).to(device);
    at::Tensor y = data.labels.narrow(0, start, kBatch).to(device);
    at::Tensor hidden = at::relu(x.mm(params[0]) + params[1]);
    at::Tensor logits = hidden.mm(params[2]) + params[3];
    at::Tensor loss = at::nll_loss(at::log_softmax(logits, 1), y);
    loss.backward();
    {
      torch::NoGradGuard no_grad;
      for (at::Tensor& p : params) {
        p.sub_(p.grad(), kLearningRate);
        p.mutable_grad().zero_();
      }
    }
    losses.push_back(loss.item<float>());
  }
  return losses;
}
// [doc:end]

class Training : public npu_test::NpuTest {};

TEST_F(Training, FashionMnistMlpOnTheNpuMatchesTheCpu) {
  fashion_mnist();
  at::native::set_cpu_fallback_mode(at::native::CpuFallbackMode::kSilent);
  // One intra-op thread: the same losses, and a run of about a second even
  // on a loaded machine, where OpenMP's spinning threads took 8 s (2 cores).
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> on_cpu = train(c10::Device("cpu"));
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<float> on_npu = train(c10::Device("npu:0"));
  const auto t2 = std::chrono::steady_clock::now();
  at::set_num_threads(threads);
  ASSERT_EQ(on_npu.size(), on_cpu.size());
  for (size_t i = 0; i < on_cpu.size(); ++i) {
    ASSERT_NEAR(on_npu[i], on_cpu[i], 1e-4 * (1 + std::fabs(on_cpu[i]))) << "step " << i;
  }
  double last = 0;
  for (size_t i = on_npu.size() - 20; i < on_npu.size(); ++i) last += on_npu[i] / 20;
  std::printf("loss %.4f -> %.4f (mean of the last 20 steps); cpu %.2f s, npu %.2f s\n",
              on_npu.front(), last, std::chrono::duration<double>(t1 - t0).count(),
              std::chrono::duration<double>(t2 - t1).count());
  std::printf("ops through the CPU fallback:");
  for (const std::string& op : at::native::cpu_fallback_ops()) std::printf(" %s", op.c_str());
  std::printf("\n");
  EXPECT_GT(on_npu.front(), 1.8);  // ten classes: about ln 10 untrained
  EXPECT_LT(last, 0.9);
}

}  // namespace
