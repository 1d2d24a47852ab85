// tools/train/trainer.cc — see trainer.h.
#include "tools/train/trainer.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <torch/distributed.h>
#include <torch/torch.h>

#include "autograd/graph_dot.h"

#include "nn/data/datasets/rows.h"

#include "tools/train/checkpoint.h"
#include "tools/train/data_parallel.h"
#include "tools/train/output.h"
#include "tools/train/plot.h"
#include "tools/train/progress.h"

namespace tools {
namespace train {
namespace {

using Clock = std::chrono::steady_clock;

// Flag limits (docs/train.md): thread stacks and a float learning rate.
constexpr int64_t kMaxThreads = 1024;
constexpr double kMaxLr = 1e6;
namespace F = torch::nn::functional;

// Whether anything is at `path` (a FIFO or directory included): lstat only,
// never open, which would block on a FIFO. The readers then refuse what is
// not a regular file, by name.
bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// ---- data ---------------------------------------------------------------

// One split of a data set, decoded: images float32 [N, C, H, W], normalised
// with the training split's mean and standard deviation, and int64 labels.
struct Split {
  at::Tensor images;
  at::Tensor targets;
};

// The whole split lives in memory, so a batch is one index_select per
// tensor, not a gather of `batch_size` single examples and a stack: the
// loader's worker thread prepares it while the model trains on the last one.
class SplitDataset
    : public torch::data::datasets::BatchDataset<SplitDataset, torch::data::Example<>> {
 public:
  explicit SplitDataset(Split split) : split_(std::move(split)) {}
  torch::data::Example<> get_batch(c10::ArrayRef<size_t> indices) override {
    return torch::data::datasets::detail::gather_rows("train: SplitDataset", split_.images,
                                                      split_.targets, indices);
  }
  std::optional<size_t> size() const override {
    return static_cast<size_t>(split_.images.size(0));
  }

 private:
  Split split_;
};

enum class DataKind { kMnist, kCifar10 };

DataKind detect_data(const std::string& dir) {
  if (path_exists(dir + "/data_batch_1.bin") || path_exists(dir + "/test_batch.bin")) {
    return DataKind::kCifar10;
  }
  return DataKind::kMnist;
}

// The first `limit` examples (0: all); the readers stop decoding there.
Split read_split(DataKind kind, const std::string& dir, bool train, int64_t limit) {
  if (kind == DataKind::kCifar10) {
    torch::data::datasets::CIFAR10 d(dir,
                                     train ? torch::data::datasets::CIFAR10::Mode::kTrain
                                           : torch::data::datasets::CIFAR10::Mode::kTest,
                                     limit);
    return {d.images(), d.targets()};
  }
  torch::data::datasets::MNIST d(dir,
                                 train ? torch::data::datasets::MNIST::Mode::kTrain
                                       : torch::data::datasets::MNIST::Mode::kTest,
                                 limit);
  return {d.images(), d.targets()};
}

// ---- models ---------------------------------------------------------------

torch::nn::Sequential make_model(const std::string& kind, const at::IntArrayRef image_shape) {
  const int64_t c = image_shape[0], h = image_shape[1], w = image_shape[2];
  if (kind == "mlp") {
    return torch::nn::Sequential(torch::nn::Flatten(), torch::nn::Linear(c * h * w, 512),
                                 torch::nn::ReLU(), torch::nn::Linear(512, 256),
                                 torch::nn::ReLU(), torch::nn::Linear(256, 10));
  }
  return torch::nn::Sequential(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(c, 32, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::MaxPool2d(2),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::MaxPool2d(2), torch::nn::Flatten(),
      torch::nn::Linear(64 * (h / 4) * (w / 4), 10));
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const Config& config,
                                                        std::vector<at::Tensor> params) {
  if (config.optimizer == "adam") {
    return std::make_unique<torch::optim::Adam>(std::move(params),
                                                torch::optim::AdamOptions(config.lr));
  }
  return std::make_unique<torch::optim::SGD>(
      std::move(params), torch::optim::SGDOptions(config.lr).momentum(0.9));
}

std::string kind_name(DataKind kind) { return kind == DataKind::kCifar10 ? "cifar10" : "mnist"; }

// ---- the loop ---------------------------------------------------------------

double evaluate(torch::nn::Sequential& model, const Split& test, int64_t batch_size,
                c10::Device device) {
  at::NoGradGuard no_grad;
  model->eval();
  const int64_t n = test.images.size(0);
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += batch_size) {
    const int64_t len = std::min(batch_size, n - start);
    const at::Tensor images = test.images.narrow(0, start, len).to(device);
    const at::Tensor logits = model->forward(images).to(c10::kCPU);
    correct += logits.argmax(1).eq(test.targets.narrow(0, start, len)).sum().item<int64_t>();
  }
  model->train();
  return n == 0 ? 0.0 : static_cast<double>(correct) / static_cast<double>(n);
}

int64_t peak_rss_bytes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

void write_metrics(const std::string& path, const std::vector<EpochStats>& epochs) {
  std::ostringstream f;
  f << "epoch,train_loss,test_accuracy,epoch_seconds,samples_per_second\n";
  f << std::setprecision(6);
  for (const EpochStats& e : epochs) {
    f << e.epoch << ',' << e.train_loss << ',' << e.test_accuracy << ',' << e.seconds << ','
      << e.samples_per_second << '\n';
  }
  write_file_atomically("--metrics", path, f.str());
}

// --graph: the DOT text of the first step's graph, leaves named after the
// model's parameters. Graphviz is not part of the build environment, so the
// picture is left to `dot -Tpng` (docs/profiling.md).
void write_graph(const std::string& path, const at::Tensor& loss,
                 const torch::nn::Sequential& model) {
  std::vector<std::pair<std::string, at::Tensor>> named;
  for (const auto& item : model->named_parameters()) named.emplace_back(item.key(), item.value());
  const std::string dot = torch::autograd::graph_dot(loss, named);
  const bool png = path.size() >= 4 && path.compare(path.size() - 4, 4, ".png") == 0;
  if (png) {
    render_dot_png(path, dot);  // a picture, drawn by Graphviz's dot
  } else {
    write_file_atomically("--graph", path, dot);
  }
}

// --profile: writes the trace and prints the table's top 15 rows.
void finish_profile(const std::string& path, torch::profiler::profile& profiler,
                    std::ostream& out) {
  profiler.stop();
  profiler.export_chrome_trace(path);
  out << profiler.key_averages().table("self_cpu_time_total", 15);
  if (profiler.dropped_events() > 0) {
    out << "(the profiler dropped " << profiler.dropped_events() << " events)\n";
  }
  out << "profile: " << path << " (open it in https://ui.perfetto.dev or chrome://tracing)\n";
}

// A stream that drops what it is given and stays good.
class NullStream : public std::ostream {
 public:
  NullStream() : std::ostream(&buffer_) {}

 private:
  struct Drop : std::streambuf {
    int overflow(int c) override { return c; }
  } buffer_;
};

Result train_rank(const Config& config, std::ostream& out, const DataParallel& dp,
                  int64_t threads);

}  // namespace

void validate(const Config& c) {
  TORCH_CHECK(c.model == "mlp" || c.model == "cnn", "train: --model must be mlp or cnn, got '",
              c.model, "'");
  TORCH_CHECK(c.optimizer == "sgd" || c.optimizer == "adam",
              "train: --optimizer must be sgd or adam, got '", c.optimizer, "'");
  TORCH_CHECK(c.schedule == "constant" || c.schedule == "cosine",
              "train: --schedule must be constant or cosine, got '", c.schedule, "'");
  TORCH_CHECK(c.epochs >= 1, "train: --epochs must be at least 1, got ", c.epochs);
  TORCH_CHECK(c.batch_size >= 1, "train: --batch_size must be at least 1, got ", c.batch_size);
  TORCH_CHECK(std::isfinite(c.lr) && c.lr > 0, "train: --lr must be a positive number, got ",
              c.lr);
  TORCH_CHECK(c.lr <= kMaxLr, "train: --lr must be at most ", kMaxLr,
              " (a larger step only diverges, and the optimizers keep it as a float), got ",
              c.lr);
  TORCH_CHECK(c.threads >= 0 && c.threads <= kMaxThreads, "train: --threads must be in [1, ",
              kMaxThreads, "] (or 0 for every core), got ", c.threads);
  TORCH_CHECK(c.device == "cpu" || c.device == "cuda",
              "train: --device must be cpu or cuda, got '", c.device, "'");
  TORCH_CHECK(c.train_samples >= 0 && c.test_samples >= 0,
              "train: --train_samples and --test_samples must be >= 0 (0 means all)");
  TORCH_CHECK(c.profile_steps >= 1, "train: --profile_steps must be at least 1, got ",
              c.profile_steps);
}

// --device=cuda: See Note [Training on CUDA].
void check_cuda_config(const Config& config, DataParallel& dp) {
  TORCH_CHECK(!config.memory_report, "train: --memory-report measures the CPU allocator; it "
              "is not available with --device=cuda (see c10::cuda::CUDACachingAllocator::"
              "memory_summary)");
  TORCH_CHECK(torch::cuda::is_available(), "train: --device=cuda, but ",
              c10::impl::hasDeviceGuardImpl(c10::kCUDA)
                  ? "no CUDA device is usable (torch::cuda::device_count() is 0)"
                  : "Ember's CUDA plugin is not available in this build (it is built where "
                    "the CUDA Toolkit is installed)",
              "; use --device=cpu");
  if (!dp.active()) return;
  // Several processes: NCCL, a GPU each (See Note [Data-parallel training]).
  TORCH_CHECK(torch::distributed::is_nccl_available(), "train: --device=cuda with several "
              "processes needs the NCCL process group, which this build does not have (it is "
              "linked where the CUDA Toolkit is installed); train on one process, or on the CPU");
  const int64_t devices = static_cast<int64_t>(torch::cuda::device_count());
  TORCH_CHECK(dp.local_world <= devices, "train: --device=cuda with ", dp.local_world,
              " processes on this machine needs a GPU for each (NCCL runs one rank per GPU), "
              "but it has ", devices, "; pass --nproc=", devices, " or fewer");
  dp.backend = "nccl";
  c10::impl::getDeviceGuardImpl(c10::kCUDA)->setDevice(
      c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(dp.local_rank)));
}

Result train(const Config& config, std::ostream& main_out) {
  validate(config);
  // Several processes: See Note [Data-parallel training] in data_parallel.cc.
  // Only rank 0 prints and writes files.
  DataParallel dp = data_parallel_from_env();
  if (config.device == "cuda") check_cuda_config(config, dp);
  NullStream quiet;
  std::ostream& out = dp.main() ? main_out : quiet;
  // Every core of the machine, shared by its processes.
  const int64_t threads =
      config.threads > 0
          ? config.threads
          : std::max<int64_t>(1, std::thread::hardware_concurrency() / dp.local_world);
  // Outputs first: a folder that cannot be written fails now, not after
  // the training (See Note [Training outputs] in output.h).
  if (!dp.main()) {
    Config rest = config;  // other ranks write nothing and keep quiet
    rest.save.clear();
    rest.metrics.clear();
    rest.plot.clear();
    rest.profile.clear();
    rest.graph.clear();
    rest.memory_report = false;
    rest.progress = Config::Progress::kQuiet;
    return train_rank(rest, out, dp, threads);
  }
  return train_rank(config, out, dp, threads);
}

namespace {
Result train_rank(const Config& config, std::ostream& out, const DataParallel& dp,
                  int64_t threads) {
  if (!config.save.empty()) check_output_path("--save", config.save);
  if (!config.metrics.empty()) check_output_path("--metrics", config.metrics);
  if (!config.plot.empty()) check_output_path("--plot", config.plot);
  if (!config.profile.empty()) check_output_path("--profile", config.profile);
  if (!config.graph.empty()) check_output_path("--graph", config.graph);
  at::set_num_threads(static_cast<int>(threads));
  torch::manual_seed(config.seed);
  join(dp);

  Result result;
  // --memory-report: See Note [What --memory-report measures].
  MemoryReport& memory = result.memory;
  memory.measured = config.memory_report;
  int64_t mark = memory.measured ? tensor_bytes_in_use() : 0;

  // Data, decoded once (only the samples asked for) and normalised in place
  // with the training set's statistics.
  const DataKind kind = detect_data(config.data);
  Split train_split = read_split(kind, config.data, /*train=*/true, config.train_samples);
  Split test_split = read_split(kind, config.data, /*train=*/false, config.test_samples);
  TORCH_CHECK(train_split.images.size(0) > 0, "train: the training set in '", config.data,
              "' is empty");
  TORCH_CHECK(test_split.images.size(0) > 0, "train: the test set in '", config.data,
              "' is empty, so there is no accuracy to report; add test files with examples");
  {
    at::NoGradGuard no_grad;
    const double mean = train_split.images.mean().item<double>();
    const double std = train_split.images.std().item<double>();
    TORCH_CHECK(std > 0, "train: the training images in '", config.data,
                "' are all the same value; nothing to learn");
    train_split.images.sub_(mean).div_(std);
    test_split.images.sub_(mean).div_(std);
  }
  const std::vector<int64_t> image_shape(train_split.images.sizes().begin() + 1,
                                         train_split.images.sizes().end());

  if (memory.measured) {
    memory.dataset = tensor_bytes_in_use() - mark;
    mark = tensor_bytes_in_use();
  }
  result.dataset_bytes =
      train_split.images.nbytes() + train_split.targets.nbytes() + test_split.images.nbytes() +
      test_split.targets.nbytes();

  // Note [Training on CUDA]
  // ~~~~~~~~~~~~~~~~~~~~~~~
  // --device=cuda: the data set stays in host memory and each batch is
  // copied to the device as it is used; the model is made on the CPU (the
  // same initial weights as a CPU run with the same seed) and moved before
  // the optimizer sees its parameters. Evaluation copies the logits back and
  // counts on the CPU; checkpoints hold CPU tensors, so one written on the
  // GPU resumes on the CPU and the other way round. One process
  // (check_cuda_config).
  const c10::Device device(config.device == "cuda" ? c10::kCUDA : c10::kCPU);
  torch::nn::Sequential model = make_model(config.model, image_shape);
  model->to(device);
  if (memory.measured) memory.parameters = tensor_bytes_in_use() - mark;
  for (const at::Tensor& p : model->parameters()) {
    result.parameters += p.numel();
    result.model_bytes += p.nbytes();
  }
  for (const at::Tensor& b : model->buffers()) result.model_bytes += b.nbytes();
  std::unique_ptr<torch::optim::Optimizer> optimizer =
      make_optimizer(config, model->parameters());
  // Several processes: rank 0's weights everywhere, gradients averaged.
  std::unique_ptr<torch::nn::parallel::DistributedDataParallel> ddp;
  if (dp.active()) ddp = std::make_unique<torch::nn::parallel::DistributedDataParallel>(model);

  const int64_t train_n = train_split.images.size(0);
  // Not (n + b - 1) / b, which overflows for --batch_size near 2^63.
  const int64_t batches =
      train_n / config.batch_size + (train_n % config.batch_size != 0 ? 1 : 0);
  // A worker thread prepares the next batch on a core the ops leave free.
  // Where they use every core (several processes, or one with --threads at
  // the core count, the default) the batch is made on the training thread:
  // a loader thread only preempts a compute thread, which then holds up the
  // others at each parallel region's barrier (2.4x slower epochs with 2
  // processes on 2 cores; the MLP at 2 threads no faster than at 1).
  // --memory-report makes them there too: the allocator's counters are the
  // process's, so a batch the loader made inside a measured window would be
  // counted in that category (Note [What --memory-report measures]).
  const int64_t cores = static_cast<int64_t>(std::thread::hardware_concurrency());
  const bool loader_thread = !dp.active() && threads < cores && !memory.measured;
  auto loader = torch::data::make_data_loader(
      SplitDataset(std::move(train_split)), GlobalBatchShardSampler(train_n, dp.rank, dp.world),
      torch::data::DataLoaderOptions().batch_size(config.batch_size).workers(loader_thread ? 1 : 0));

  // After the loader, whose construction may draw from the generator: the
  // checkpoint's generator state then continues exactly where it was saved.
  if (!config.resume.empty()) {
    result.epochs = load_checkpoint(config.resume, config, kind_name(kind), model, *optimizer);
    out << "resumed from " << config.resume << " after epoch " << result.epochs.size() << "\n";
  }

  // The learning rate of each epoch: constant, or cosine-annealed from --lr
  // towards 0 over --epochs (stepped once per epoch, also over resumed ones).
  std::unique_ptr<torch::optim::CosineAnnealingLR> scheduler;
  if (config.schedule == "cosine") {
    scheduler = std::make_unique<torch::optim::CosineAnnealingLR>(*optimizer, config.epochs);
    for (size_t i = 0; i < result.epochs.size(); ++i) scheduler->step();
  }

  out << "training " << config.model << " (" << result.parameters << " parameters) on "
      << train_n << " images " << at::IntArrayRef(image_shape) << " from " << config.data << ": "
      << config.optimizer << " lr " << config.lr << ", batch " << config.batch_size << ", "
      << threads << " thread" << (threads == 1 ? "" : "s");
  if (dp.active()) out << " per process, " << dp.world << " processes (data-parallel)";
  out << "\n";

  const bool on_terminal = config.progress == Config::Progress::kBar ||
                           (config.progress == Config::Progress::kAuto &&
                            isatty(STDOUT_FILENO) && &out == &std::cout);
  // --profile: the first --profile_steps steps; --graph: the first step's
  // graph. See docs/profiling.md.
  torch::profiler::ProfilerOptions profiler_options;
  profiler_options.record_shapes = true;
  profiler_options.with_stack = true;
  profiler_options.profile_memory = true;
  std::unique_ptr<torch::profiler::profile> profiler;
  int64_t profiled_steps = 0;
  bool graph_written = false;
  int64_t measured_steps = 0;  // --memory-report
  at::Tensor last_loss;
  for (int64_t epoch = static_cast<int64_t>(result.epochs.size()) + 1; epoch <= config.epochs;
       ++epoch) {
    ProgressBar bar(out, epoch, config.epochs, batches,
                    on_terminal && config.progress != Config::Progress::kQuiet);
    model->train();
    double loss_sum = 0;
    int64_t seen = 0, done = 0;
    const Clock::time_point start = Clock::now();
    for (torch::data::Example<>& batch : *loader) {
      if (profiled_steps == 0 && !config.profile.empty() && !profiler) {
        profiler = std::make_unique<torch::profiler::profile>(profiler_options);
      }
      {
        // One range per profiled step, as PyTorch's profiler names them.
        RECORD_USER_SCOPE(profiler ? "ProfilerStep#" + std::to_string(profiled_steps) : "");
        optimizer->zero_grad();
        const bool first_step = measured_steps == 0;
        if (memory.measured) {
          mark = tensor_bytes_in_use();
          c10::reset_cpu_allocator_peak();
        }
        const at::Tensor data = batch.data.to(device), target = batch.target.to(device);
        at::Tensor loss =
            F::cross_entropy(ddp ? ddp->forward(data) : model->forward(data), target);
        if (memory.measured && first_step) memory.activations = tensor_bytes_in_use() - mark;
        if (!config.graph.empty() && !graph_written) {
          write_graph(config.graph, loss, model);
          graph_written = true;
        }
        if (dp.active()) {
          const int64_t global = std::min(config.batch_size, train_n - done * config.batch_size);
          loss.mul(shard_loss_scale(batch.data.size(0), global, dp.world)).backward();
        } else {
          loss.backward();
        }
        if (memory.measured && first_step) {
          for (const at::Tensor& p : model->parameters()) {
            if (p.grad().defined()) memory.gradients += p.grad().nbytes();
          }
          mark = tensor_bytes_in_use();
        }
        optimizer->step();
        last_loss = loss;
        if (memory.measured) {
          if (first_step) memory.optimizer_state = tensor_bytes_in_use() - mark;
          // The first step's peak counts only when it is the only one: the
          // optimizer state does not exist during its forward and backward.
          const int64_t peak = c10::cpu_allocator_stats().peak_bytes;
          memory.step_peak = measured_steps == 1 ? peak : std::max(memory.step_peak, peak);
          ++measured_steps;
        }
      }
      if (profiler && ++profiled_steps == config.profile_steps) {
        finish_profile(config.profile, *profiler, out);
        profiler.reset();
      }
      const at::Tensor& loss = last_loss;
      const double l = loss.item<double>();
      TORCH_CHECK(std::isfinite(l), "train: the loss became ", l, " at epoch ", epoch,
                  ", batch ", done + 1, "; lower --lr (now ", config.lr, ")");
      const int64_t b = batch.data.size(0);
      loss_sum += l * static_cast<double>(b);
      seen += b;
      ++done;
      bar.update(done, seen, loss_sum / static_cast<double>(seen));
    }
    // An epoch shorter than --profile_steps: the trace holds its steps.
    if (profiler) {
      finish_profile(config.profile, *profiler, out);
      profiler.reset();
    }
    EpochStats e;
    e.epoch = epoch;
    e.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    // Several processes: the whole job's loss and samples.
    std::vector<double> totals = {loss_sum, static_cast<double>(seen)};
    sum_over_ranks(dp, totals, device);
    e.train_loss = totals[0] / std::max(totals[1], 1.0);
    e.samples_per_second = totals[1] / e.seconds;
    // Measured once, by rank 0.
    e.test_accuracy = dp.main() ? evaluate(model, test_split, 500, device) : 0.0;
    bar.finish();
    char line[256];
    std::snprintf(line, sizeof(line),
                  "epoch %lld/%lld: train loss %.4f, test accuracy %.2f%%, %.2f s "
                  "(%.0f samples/s)\n",
                  static_cast<long long>(epoch), static_cast<long long>(config.epochs),
                  e.train_loss, 100 * e.test_accuracy, e.seconds, e.samples_per_second);
    out << line << std::flush;
    TORCH_CHECK(out.good(), "train: cannot write the progress of epoch ", epoch,
                " (is standard output on a full disk or closed?)");
    result.epochs.push_back(e);
    if (scheduler) scheduler->step();
    if (!config.save.empty()) {
      save_checkpoint(config.save, config, kind_name(kind), model, *optimizer, result.epochs);
    }
  }
  if (!config.metrics.empty()) write_metrics(config.metrics, result.epochs);
  if (!config.plot.empty()) plot_png(config.plot, result.epochs);
  result.peak_rss_bytes = peak_rss_bytes();
  if (memory.measured) out << memory_report_text(memory);
  leave(dp);
  return result;
}
}  // namespace

}  // namespace train
}  // namespace tools
