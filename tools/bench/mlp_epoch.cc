// The Fashion-MNIST MLP epoch of DESIGN.md's performance budget, written once
// against the torch API that Ember and libtorch share: built by Bazel against
// Ember (//tools/bench:mlp_epoch) and by tools/bench/libtorch_mlp_epoch.sh
// against Debian's libtorch, so the two epoch times come from the same code.
//   mlp_epoch DATA_DIR [THREADS] [EPOCHS]
// DATA_DIR holds the four IDX files, uncompressed (libtorch reads no .gz).
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR [THREADS] [EPOCHS]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const int epochs = argc > 3 ? std::atoi(argv[3]) : 3;
  torch::set_num_threads(threads);
  torch::manual_seed(1);

  torch::nn::Sequential model(torch::nn::Flatten(), torch::nn::Linear(784, 512),
                              torch::nn::ReLU(), torch::nn::Linear(512, 256), torch::nn::ReLU(),
                              torch::nn::Linear(256, 10));
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));

  auto train = torch::data::datasets::MNIST(dir, torch::data::datasets::MNIST::Mode::kTrain)
                   .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                   .map(torch::data::transforms::Stack<>());
  auto test = torch::data::datasets::MNIST(dir, torch::data::datasets::MNIST::Mode::kTest)
                  .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
                  .map(torch::data::transforms::Stack<>());
  auto train_loader = torch::data::make_data_loader(
      std::move(train), torch::data::DataLoaderOptions().batch_size(128).workers(1));
  auto test_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(test), torch::data::DataLoaderOptions().batch_size(1000));

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    model->train();
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t seen = 0;
    for (auto& batch : *train_loader) {
      optimizer.zero_grad();
      torch::Tensor loss =
          torch::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>() * batch.data.size(0);
      seen += batch.data.size(0);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    torch::NoGradGuard no_grad;
    model->eval();
    int64_t correct = 0, total = 0;
    for (auto& batch : *test_loader) {
      correct += model->forward(batch.data).argmax(1).eq(batch.target).sum().item<int64_t>();
      total += batch.data.size(0);
    }
    std::printf("epoch %d: %.3f s, train loss %.4f, test accuracy %.2f%%\n", epoch, seconds,
                loss_sum / seen, 100.0 * correct / total);
  }
  return 0;
}
