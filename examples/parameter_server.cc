// A parameter server on RPC and distributed autograd (PyTorch's "RPC-based
// parameter server" tutorial, in C++): rank 0 ("ps") holds the model of
// //tools:train's MLP (784-512-256-10, Fashion-MNIST); every other rank is a
// trainer that, for each batch, opens a distributed autograd context, fetches
// a copy of the parameters (remote + to_here), runs forward and the distributed backward
// pass — whose gradients land in the context on the server — and steps a
// DistributedOptimizer (SGD, momentum 0.9, over RRefs to the server's
// parameters) there.
//
//   ./bazelw build //examples:parameter_server //tools:launch
//   bazel-bin/tools/launch --nproc=3 bazel-bin/examples/parameter_server --epochs=2
//
// Flags (as //tools:train's): --epochs=1 --batch_size=128 --lr=0.1 --seed=1
// --threads=1 --train_samples=0 (all) --test_samples=0 (all)
// --data=/usr/share/datasets/fashion-mnist. Trainer k of N trains on the
// samples k-1, k-1+N, … in its own random order. With one trainer the run is
// //tools:train's, step for step: same initial weights, same batches, same
// gradients, same updates, so the same test accuracy. With several, trainers
// update the shared parameters asynchronously, as in the tutorial: each
// computes its gradients on the copy it fetched while the others step, but
// a copy is taken under the steps' lock, so it never mixes two steps.
#include <torch/distributed.h>
#include <torch/library.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "distributed/optim/optimizer.h"

namespace rpc = torch::distributed::rpc;
namespace dist_autograd = torch::distributed::autograd;
namespace F = torch::nn::functional;

namespace {

struct Options {
  int64_t epochs = 1;
  int64_t batch_size = 128;
  double lr = 0.1;
  uint64_t seed = 1;
  int64_t threads = 1;
  int64_t train_samples = 0;
  int64_t test_samples = 0;
  std::string data = "/usr/share/datasets/fashion-mnist";
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    TORCH_CHECK(eq != std::string::npos && !value.empty(), "parameter_server: expected "
                "--name=value, got '", arg, "'");
    if (name == "--epochs") {
      o.epochs = std::stoll(value);
    } else if (name == "--batch_size") {
      o.batch_size = std::stoll(value);
    } else if (name == "--lr") {
      o.lr = std::stod(value);
    } else if (name == "--seed") {
      o.seed = std::stoull(value);
    } else if (name == "--threads") {
      o.threads = std::stoll(value);
    } else if (name == "--train_samples") {
      o.train_samples = std::stoll(value);
    } else if (name == "--test_samples") {
      o.test_samples = std::stoll(value);
    } else if (name == "--data") {
      o.data = value;
    } else {
      TORCH_CHECK(false, "parameter_server: unknown flag '", name, "'; see the top of "
                  "examples/parameter_server.cc");
    }
  }
  TORCH_CHECK(o.epochs > 0 && o.batch_size > 0 && o.lr > 0 && o.threads > 0 &&
              o.train_samples >= 0 && o.test_samples >= 0,
              "parameter_server: --epochs, --batch_size, --lr and --threads must be "
              "positive, the sample counts 0 (all) or positive");
  return o;
}

struct Split {
  at::Tensor images;   // [n, 1, 28, 28], normalised
  at::Tensor targets;  // [n]
};

// The images normalised with the training set's mean and std, as
// //tools:train does (so both see the same numbers).
Split read_split(const Options& o, bool train, double* mean, double* std) {
  using torch::data::datasets::MNIST;
  MNIST d(o.data, train ? MNIST::Mode::kTrain : MNIST::Mode::kTest,
          train ? o.train_samples : o.test_samples);
  Split s{d.images(), d.targets()};
  at::NoGradGuard no_grad;
  if (train) {
    *mean = s.images.mean().item<double>();
    *std = s.images.std().item<double>();
  }
  s.images.sub_(*mean).div_(*std);
  return s;
}

torch::nn::Sequential make_mlp() {
  return torch::nn::Sequential(torch::nn::Flatten(), torch::nn::Linear(28 * 28, 512),
                               torch::nn::ReLU(), torch::nn::Linear(512, 256),
                               torch::nn::ReLU(), torch::nn::Linear(256, 10));
}

// ---- the server (rank 0) ----------------------------------------------------

struct Server {
  torch::nn::Sequential model = make_mlp();
  std::vector<at::Tensor> parameters;
  Split test;
};
std::unique_ptr<Server> g_server;

Server& server() {
  TORCH_CHECK(g_server != nullptr, "parameter_server: this worker is not the server");
  return *g_server;
}

// A copy of every parameter, taken under the lock the optimizers' steps
// hold, so that it never mixes two steps. The copies are made with autograd
// on (clone's backward is the identity): when a trainer fetches them with
// to_here() in its context, their gradients flow back through them into
// the context's gradients of the parameters, where DistributedOptimizer
// finds them.
std::vector<at::Tensor> parameters() {
  Server& s = server();
  std::lock_guard<std::mutex> g(torch::distributed::optim::local_step_mutex());
  std::vector<at::Tensor> copies;
  for (const at::Tensor& p : s.parameters) copies.push_back(p.clone());
  return copies;
}

// The i-th parameter itself (remote() keeps it: its RRef is the tensor).
at::Tensor parameter(int64_t i) {
  Server& s = server();
  TORCH_CHECK(i >= 0 && i < static_cast<int64_t>(s.parameters.size()),
              "parameter_server: no parameter ", i, "; there are ", s.parameters.size());
  return s.parameters[static_cast<size_t>(i)];
}

int64_t num_parameters() { return static_cast<int64_t>(server().parameters.size()); }

// Test accuracy of the server's model, as //tools:train measures it.
double evaluate() {
  Server& s = server();
  at::NoGradGuard no_grad;
  std::lock_guard<std::mutex> g(torch::distributed::optim::local_step_mutex());
  const int64_t n = s.test.images.size(0);
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += 500) {
    const int64_t len = std::min<int64_t>(500, n - start);
    at::Tensor logits = s.model->forward(s.test.images.narrow(0, start, len));
    correct += logits.argmax(1).eq(s.test.targets.narrow(0, start, len)).sum().item<int64_t>();
  }
  return n == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(n);
}

// ---- a trainer (rank 1..N) ----------------------------------------------------

class ShardDataset
    : public torch::data::datasets::BatchDataset<ShardDataset, torch::data::Example<>> {
 public:
  explicit ShardDataset(Split split) : split_(std::move(split)) {}
  torch::data::Example<> get_batch(c10::ArrayRef<size_t> indices) override {
    std::vector<int64_t> rows(indices.begin(), indices.end());
    at::Tensor index = torch::tensor(rows, torch::kLong);
    return {split_.images.index_select(0, index), split_.targets.index_select(0, index)};
  }
  std::optional<size_t> size() const override {
    return static_cast<size_t>(split_.images.size(0));
  }

 private:
  Split split_;
};

void train(const Options& o, int rank, int trainers) {
  // The random draws //tools:train makes before its loader: the initial
  // weights (made, as there, but held by the server).
  torch::manual_seed(o.seed);
  make_mlp();
  double mean = 0, std = 1;
  Split all = read_split(o, /*train=*/true, &mean, &std);
  if (trainers > 1) {
    at::Tensor mine = torch::arange(rank - 1, all.images.size(0), trainers, torch::kLong);
    all = {all.images.index_select(0, mine), all.targets.index_select(0, mine)};
  }
  const int64_t samples = all.images.size(0);
  auto loader = torch::data::make_data_loader(
      ShardDataset(std::move(all)),
      torch::data::DataLoaderOptions().batch_size(o.batch_size).workers(1));

  const int64_t n = rpc::rpc_sync("ps", "parameter_server::num_parameters").toInt();
  std::vector<rpc::RRef> params;
  for (int64_t i = 0; i < n; ++i) {
    params.push_back(rpc::remote("ps", "parameter_server::parameter", {i}));
  }
  torch::distributed::optim::DistributedOptimizer<torch::optim::SGD> optimizer(
      params, torch::optim::SGDOptions(o.lr).momentum(0.9));

  const std::string me = "trainer" + std::to_string(rank);
  std::cout << me << ": training on " << samples << " images (batch " << o.batch_size
            << ", lr " << o.lr << ") with the parameters on ps" << std::endl;
  for (int64_t epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t seen = 0;
    for (torch::data::Example<>& batch : *loader) {
      dist_autograd::context ctx;
      // The copy stays on the server behind an RRef; to_here() in a context
      // records the send/recv pair its gradients travel back through.
      std::vector<at::Tensor> w =
          rpc::remote("ps", "parameter_server::parameters").to_here().toTensorVector();
      at::Tensor x = batch.data.flatten(1);
      x = torch::relu(F::linear(x, w[0], w[1]));
      x = torch::relu(F::linear(x, w[2], w[3]));
      at::Tensor loss = F::cross_entropy(F::linear(x, w[4], w[5]), batch.target);
      dist_autograd::backward(ctx.id(), {loss});
      optimizer.step(ctx.id());
      const double l = loss.item<double>();
      TORCH_CHECK(std::isfinite(l), me, ": the loss became ", l, "; lower --lr");
      loss_sum += l * static_cast<double>(batch.data.size(0));
      seen += batch.data.size(0);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double accuracy = rpc::rpc_sync("ps", "parameter_server::evaluate").toDouble();
    char line[256];
    std::snprintf(line, sizeof(line),
                  "%s epoch %lld/%lld: train loss %.4f, test accuracy %.2f%%, %.2f s "
                  "(%.0f samples/s)",
                  me.c_str(), static_cast<long long>(epoch), static_cast<long long>(o.epochs),
                  loss_sum / static_cast<double>(std::max<int64_t>(seen, 1)), 100 * accuracy,
                  seconds, static_cast<double>(seen) / seconds);
    std::cout << line << std::endl;
  }
}

}  // namespace

TORCH_LIBRARY(parameter_server, m) {
  m.def("parameters", &parameters);
  m.def("parameter", &parameter);
  m.def("num_parameters", &num_parameters);
  m.def("evaluate", &evaluate);
}

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const char* rank_env = std::getenv("RANK");
    const char* world_env = std::getenv("WORLD_SIZE");
    const int rank = rank_env ? std::atoi(rank_env) : 0;
    const int world = world_env ? std::atoi(world_env) : 1;
    TORCH_CHECK(world >= 2, "parameter_server: needs a server and at least one trainer; "
                "start it with //tools:launch --nproc=2 (or more)");
    at::set_num_threads(static_cast<int>(o.threads));
    if (rank == 0) {
      // Built before init_rpc: trainers call in as soon as it returns.
      torch::manual_seed(o.seed);
      g_server = std::make_unique<Server>();
      g_server->parameters = g_server->model->parameters();
      double mean = 0, std = 1;
      read_split(o, /*train=*/true, &mean, &std);
      g_server->test = read_split(o, /*train=*/false, &mean, &std);
    }
    rpc::init_rpc(rank == 0 ? "ps" : "trainer" + std::to_string(rank));
    if (rank != 0) train(o, rank, world - 1);
    rpc::shutdown();  // waits for every trainer
    if (rank == 0) {
      std::printf("ps: test accuracy %.2f%% after %d trainer%s\n", 100 * evaluate(), world - 1,
                  world == 2 ? "" : "s");
    }
    std::cout << (rank == 0 ? "ps" : "trainer" + std::to_string(rank))
              << ": live distributed autograd contexts " << dist_autograd::debug::live_contexts()
              << std::endl;
    return dist_autograd::debug::live_contexts() == 0 ? 0 : 1;
  } catch (const c10::Error& e) {
    std::cerr << e.what_without_backtrace() << std::endl;
    if (rpc::is_initialized()) {
      try {
        rpc::shutdown(/*graceful=*/false);  // stop the agent before exit
      } catch (const c10::Error&) {
      }
    }
    return 1;
  }
}
