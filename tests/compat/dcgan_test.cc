// A DCGAN written as libtorch's C++ dcgan example is (without its
// argparse command line): a generator of ConvTranspose2d + BatchNorm2d +
// ReLU + Tanh, a discriminator of Conv2d + LeakyReLU + BatchNorm2d +
// Sigmoid, Adam with betas (0.5, 0.999), binary_cross_entropy with smoothed
// real labels, and checkpoints of both networks and optimizers through
// torch::save / torch::load. Bounded: 8 batches of Fashion-MNIST.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include <torch/torch.h>

namespace {

const char* kDataFolder = "/usr/share/datasets/fashion-mnist";
const int64_t kNoiseSize = 100;
const int64_t kBatchSize = 64;
const int64_t kBatches = 8;

struct DCGANGeneratorImpl : torch::nn::Module {
  explicit DCGANGeneratorImpl(int kNoiseSize)
      : conv1(torch::nn::ConvTranspose2dOptions(kNoiseSize, 256, 4).bias(false)),
        batch_norm1(256),
        conv2(torch::nn::ConvTranspose2dOptions(256, 128, 3).stride(2).padding(1).bias(false)),
        batch_norm2(128),
        conv3(torch::nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1).bias(false)),
        batch_norm3(64),
        conv4(torch::nn::ConvTranspose2dOptions(64, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    x = torch::relu(batch_norm3(conv3(x)));
    x = torch::tanh(conv4(x));
    return x;
  }

  torch::nn::ConvTranspose2d conv1;
  torch::nn::BatchNorm2d batch_norm1;
  torch::nn::ConvTranspose2d conv2;
  torch::nn::BatchNorm2d batch_norm2;
  torch::nn::ConvTranspose2d conv3;
  torch::nn::BatchNorm2d batch_norm3;
  torch::nn::ConvTranspose2d conv4;
};
TORCH_MODULE(DCGANGenerator);

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(::getpid());
}

TEST(DcganExample, TrainsAndCheckpoints) {
  torch::manual_seed(1);
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available()) device = torch::Device(torch::kCUDA);

  DCGANGenerator generator(kNoiseSize);
  generator->to(device);

  torch::nn::Sequential discriminator(
      // Layer 1
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 64, 4).stride(2).padding(1).bias(false)),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 2
      torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 128, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(128),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 3
      torch::nn::Conv2d(torch::nn::Conv2dOptions(128, 256, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(256),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 4
      torch::nn::Conv2d(torch::nn::Conv2dOptions(256, 1, 3).stride(1).padding(0).bias(false)),
      torch::nn::Sigmoid());
  discriminator->to(device);

  auto dataset = torch::data::datasets::MNIST(kDataFolder)
                     .map(torch::data::transforms::Normalize<>(0.5, 0.5))
                     .map(torch::data::transforms::Stack<>());
  auto data_loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(kBatchSize).workers(2));

  torch::optim::Adam generator_optimizer(
      generator->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.999)));
  torch::optim::Adam discriminator_optimizer(
      discriminator->parameters(),
      torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.999)));

  int64_t batch_index = 0;
  double d_loss_value = 0, g_loss_value = 0;
  for (torch::data::Example<>& batch : *data_loader) {
    if (batch_index++ == kBatches) break;
    // Train discriminator with real images.
    discriminator->zero_grad();
    torch::Tensor real_images = batch.data.to(device);
    torch::Tensor real_labels =
        torch::empty(batch.data.size(0), device).uniform_(0.8, 1.0);
    torch::Tensor real_output = discriminator->forward(real_images).reshape(real_labels.sizes());
    torch::Tensor d_loss_real = torch::binary_cross_entropy(real_output, real_labels);
    d_loss_real.backward();

    // Train discriminator with fake images.
    torch::Tensor noise = torch::randn({batch.data.size(0), kNoiseSize, 1, 1}, device);
    torch::Tensor fake_images = generator->forward(noise);
    ASSERT_EQ(fake_images.sizes(), real_images.sizes());
    torch::Tensor fake_labels = torch::zeros(batch.data.size(0), device);
    torch::Tensor fake_output =
        discriminator->forward(fake_images.detach()).reshape(fake_labels.sizes());
    torch::Tensor d_loss_fake = torch::binary_cross_entropy(fake_output, fake_labels);
    d_loss_fake.backward();

    torch::Tensor d_loss = d_loss_real + d_loss_fake;
    discriminator_optimizer.step();

    // Train generator.
    generator->zero_grad();
    fake_labels.fill_(1);
    fake_output = discriminator->forward(fake_images).reshape(fake_labels.sizes());
    torch::Tensor g_loss = torch::binary_cross_entropy(fake_output, fake_labels);
    g_loss.backward();
    generator_optimizer.step();

    d_loss_value = d_loss.item<float>();
    g_loss_value = g_loss.item<float>();
    std::printf("[%2ld/%2ld] D_loss: %.4f | G_loss: %.4f\n", static_cast<long>(batch_index),
                static_cast<long>(kBatches), d_loss_value, g_loss_value);
    ASSERT_TRUE(std::isfinite(d_loss_value) && std::isfinite(g_loss_value));
  }
  // The discriminator learns quickly to separate real from generated images.
  EXPECT_LT(d_loss_value, 1.0);
  EXPECT_GT(g_loss_value, 1.0);

  // Checkpoints, as the example writes them, and a restore into fresh objects.
  const std::string g_path = temp_path("generator-checkpoint.pt");
  const std::string o_path = temp_path("generator-optimizer-checkpoint.pt");
  const std::string s_path = temp_path("dcgan-sample.pt");
  torch::save(generator, g_path);
  torch::save(generator_optimizer, o_path);
  // Sampling in eval mode leaves the BatchNorm running statistics as saved.
  generator->eval();
  torch::Tensor samples = generator->forward(torch::randn({8, kNoiseSize, 1, 1}, device));
  torch::save((samples + 1.0) / 2.0, s_path);

  DCGANGenerator restored(kNoiseSize);
  torch::load(restored, g_path);
  torch::optim::Adam restored_optimizer(
      restored->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.999)));
  torch::load(restored_optimizer, o_path);
  restored->eval();
  torch::Tensor probe = torch::randn({2, kNoiseSize, 1, 1});
  EXPECT_TRUE(torch::allclose(generator->forward(probe), restored->forward(probe)));
  EXPECT_EQ(restored_optimizer.named_state().size(), generator_optimizer.named_state().size());
  torch::Tensor loaded_samples;
  torch::load(loaded_samples, s_path);
  EXPECT_EQ(loaded_samples.sizes(), (std::vector<int64_t>{8, 1, 28, 28}));
  EXPECT_GE(loaded_samples.min().item<float>(), 0.0f);
  EXPECT_LE(loaded_samples.max().item<float>(), 1.0f);
  std::remove(g_path.c_str());
  std::remove(o_path.c_str());
  std::remove(s_path.c_str());
}

}  // namespace
