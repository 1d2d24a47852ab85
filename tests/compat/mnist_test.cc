// A digit classifier written as libtorch's C++ MNIST example is (a
// convolutional net with Dropout2d, SGD with momentum, a train and a test
// loop over DataLoaders), run on Fashion-MNIST. Bounded: 80 training
// batches (learning rate 0.05 instead of the example's 0.01, to learn in
// so few) and the first 1000 test images.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include <torch/torch.h>

namespace {

const char* kDataRoot = "/usr/share/datasets/fashion-mnist";
const int64_t kTrainBatchSize = 64;
const int64_t kTestBatchSize = 500;
const size_t kTrainBatches = 80;
const size_t kTestBatches = 2;

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*train=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

template <typename DataLoader>
double train(Net& model, torch::Device device, DataLoader& data_loader,
             torch::optim::Optimizer& optimizer) {
  model.train();
  size_t batch_idx = 0;
  double last_loss = 0;
  for (auto& batch : data_loader) {
    if (batch_idx++ == kTrainBatches) break;
    auto data = batch.data.to(device), targets = batch.target.to(device);
    optimizer.zero_grad();
    auto output = model.forward(data);
    auto loss = torch::nll_loss(output, targets);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();
    last_loss = loss.template item<double>();
  }
  return last_loss;
}

template <typename DataLoader>
double test(Net& model, torch::Device device, DataLoader& data_loader) {
  torch::NoGradGuard no_grad;
  model.eval();
  double test_loss = 0;
  int64_t correct = 0, seen = 0;
  size_t batch_idx = 0;
  for (const auto& batch : data_loader) {
    if (batch_idx++ == kTestBatches) break;
    auto data = batch.data.to(device), targets = batch.target.to(device);
    auto output = model.forward(data);
    test_loss += torch::nll_loss(output, targets, /*weight=*/{}, torch::Reduction::Sum)
                     .template item<float>();
    auto pred = output.argmax(1);
    correct += pred.eq(targets).sum().template item<int64_t>();
    seen += data.size(0);
  }
  std::printf("Test set: Average loss: %.4f | Accuracy: %.3f\n", test_loss / seen,
              static_cast<double>(correct) / seen);
  return static_cast<double>(correct) / seen;
}

TEST(MnistExample, TrainsAConvNetOnFashionMnist) {
  torch::manual_seed(1);
  torch::DeviceType device_type;
  if (torch::cuda::is_available()) {
    device_type = torch::kCUDA;
  } else {
    device_type = torch::kCPU;
  }
  torch::Device device(device_type);

  Net model;
  model.to(device);

  auto train_dataset = torch::data::datasets::MNIST(kDataRoot)
                           .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  EXPECT_EQ(train_dataset_size, 60000u);
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(train_dataset), kTrainBatchSize);

  auto test_dataset =
      torch::data::datasets::MNIST(kDataRoot, torch::data::datasets::MNIST::Mode::kTest)
          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
          .map(torch::data::transforms::Stack<>());
  auto test_loader = torch::data::make_data_loader(std::move(test_dataset), kTestBatchSize);

  torch::optim::SGD optimizer(model.parameters(),
                              torch::optim::SGDOptions(0.05).momentum(0.5));

  const double before = test(model, device, *test_loader);
  const double loss = train(model, device, *train_loader, optimizer);
  const double after = test(model, device, *test_loader);
  std::printf("accuracy before %.3f, after %.3f; last training loss %.3f\n", before, after, loss);
  // Ten classes: an untrained net is near 0.1; 80 batches reach well above.
  EXPECT_LT(before, 0.3);
  EXPECT_GT(after, 0.45);
  EXPECT_LT(loss, 2.0);
}

}  // namespace
