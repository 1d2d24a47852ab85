// tools/train/main.cc — `./bazelw run //tools:train -- [flags]`: trains a model
// on Fashion-MNIST (or any MNIST-format or CIFAR-10 binary folder) and reports
// test accuracy. `--help` lists the flags; see docs/train.md.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "c10/util/Exception.h"
#include "tools/launch/launcher.h"
#include "tools/train/trainer.h"

ABSL_FLAG(std::string, model, "mlp",
          "mlp (784-512-256-10, ReLU) or cnn (conv 3x3 32, pool, conv 3x3 64, pool, linear)");
ABSL_FLAG(int64_t, epochs, 3, "number of epochs (with --resume: the total, counting done ones)");
ABSL_FLAG(int64_t, batch_size, 128, "training batch size");
ABSL_FLAG(double, lr, 0.1, "learning rate (default 0.1 for sgd, 0.001 for adam)");
ABSL_FLAG(std::string, optimizer, "sgd", "sgd (momentum 0.9) or adam");
ABSL_FLAG(std::string, schedule, "constant",
          "learning rate per epoch: constant, or cosine (annealed from --lr towards 0)");
ABSL_FLAG(int64_t, threads, 0, "threads for the ops; 0 = every core of the machine");
ABSL_FLAG(std::string, device, "cpu", "cpu or cuda");
ABSL_FLAG(uint64_t, seed, 1, "seed of the initial weights and of the shuffle");
ABSL_FLAG(std::string, data, "/usr/share/datasets/fashion-mnist",
          "folder with MNIST-format IDX files (train-images-idx3-ubyte[.gz], ...) or "
          "CIFAR-10 binary files (data_batch_1.bin ... test_batch.bin)");
ABSL_FLAG(std::string, save, "", "write a checkpoint (safetensors) here after every epoch");
ABSL_FLAG(std::string, resume, "", "continue from a checkpoint written by --save");
ABSL_FLAG(std::string, metrics, "", "write per-epoch figures to this CSV file");
ABSL_FLAG(std::string, plot, "", "draw loss and accuracy per epoch into this PNG (gnuplot)");
ABSL_FLAG(std::string, profile, "",
          "profile the first --profile_steps training steps: write a Chrome trace (JSON, for "
          "Perfetto or chrome://tracing) here and print the top 15 ops by self CPU time");
ABSL_FLAG(int64_t, profile_steps, 5, "training steps the profiler records (with --profile)");
ABSL_FLAG(std::string, graph, "",
          "write the autograd graph of the first training step here: Graphviz DOT, or a "
          "picture drawn by Graphviz's dot when the name ends in .png");
ABSL_FLAG(bool, memory_report, false,
          "measure tensor memory by category (data set, parameters, gradients, optimizer "
          "state, activations, the peak of a step) and print it with the allocator's summary");
ABSL_FLAG(int64_t, nproc, 1,
          "data-parallel: train in this many processes on this machine (each gets its part "
          "of every --batch_size batch; gradients averaged with DistributedDataParallel)");
ABSL_FLAG(int64_t, nnodes, 1, "data-parallel: machines taking part (with --nproc each)");
ABSL_FLAG(int64_t, node_rank, 0, "data-parallel: this machine's index, 0 to nnodes - 1");
ABSL_FLAG(std::string, master_addr, "127.0.0.1",
          "data-parallel: the address of the machine of node_rank 0");
ABSL_FLAG(int64_t, master_port, 0,
          "data-parallel: rank 0's rendezvous port (0: a free one; give it with --nnodes > 1)");
ABSL_FLAG(int64_t, train_samples, 0, "train on the first N images only (0 = all)");
ABSL_FLAG(int64_t, test_samples, 0, "test on the first N images only (0 = all)");
ABSL_FLAG(std::string, progress, "auto",
          "auto (a bar on a terminal, else one line per epoch), bar, lines or quiet");

int main(int argc, char** argv) {
  absl::FlagsUsageConfig usage;
  usage.contains_helpshort_flags = [](absl::string_view file) {
    return file.find("tools/train/") != absl::string_view::npos;
  };
  usage.contains_help_flags = usage.contains_helpshort_flags;
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(
      "trains a model with Ember and reports test accuracy. Flag names take '-' or '_'\n"
      "(--batch-size or --batch_size).\n"
      "  bazel run //tools:train -- --model=cnn --epochs=3 --plot=/tmp/train.png");
  // Flag names may be spelled with hyphens (--batch-size) as well as
  // abseil's underscores (--batch_size): the name part is rewritten before
  // parsing. And whether --lr was given: its default depends on --optimizer.
  // Only flag names are rewritten: an argument that is the value of the
  // flag before it (`--save -run-1.st`) is left alone, whatever it starts with.
  const std::vector<std::string> original(argv, argv + argc);  // for --nproc's copies
  std::vector<std::string> spelled(argv, argv + argc);
  bool value_expected = false;
  for (int i = 1; i < argc; ++i) {
    std::string& a = spelled[i];
    if (a == "--") break;
    if (value_expected) {
      value_expected = false;
      continue;
    }
    if (a.size() > 2 && a[0] == '-') {
      const size_t start = a[1] == '-' ? 2 : 1;
      const size_t end = std::min(a.find('='), a.size());
      for (size_t k = start; k < end; ++k) {
        if (a[k] == '-') a[k] = '_';
      }
      argv[i] = a.data();
      // `--name value`: abseil takes the next argument as the value of a
      // non-boolean flag given without '='.
      if (end == a.size()) {
        const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(a.substr(start));
        value_expected = flag != nullptr && !flag->IsOfType<bool>();
      }
    }
  }
  bool lr_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    for (const char* prefix : {"--lr", "-lr"}) {
      const std::string p = prefix;
      if (a == p || a.rfind(p + "=", 0) == 0) lr_given = true;
    }
  }
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "train: error: unexpected argument '%s'; flags look like --epochs=5 "
                 "(see --help)\n", rest[1]);
    return 1;
  }
  try {
    tools::train::Config c;
    c.model = absl::GetFlag(FLAGS_model);
    c.epochs = absl::GetFlag(FLAGS_epochs);
    c.batch_size = absl::GetFlag(FLAGS_batch_size);
    c.optimizer = absl::GetFlag(FLAGS_optimizer);
    c.lr = absl::GetFlag(FLAGS_lr);
    if (c.optimizer == "adam" && !lr_given) c.lr = 0.001;
    c.schedule = absl::GetFlag(FLAGS_schedule);
    c.threads = absl::GetFlag(FLAGS_threads);
    c.device = absl::GetFlag(FLAGS_device);
    c.seed = absl::GetFlag(FLAGS_seed);
    c.data = absl::GetFlag(FLAGS_data);
    c.save = absl::GetFlag(FLAGS_save);
    c.resume = absl::GetFlag(FLAGS_resume);
    c.metrics = absl::GetFlag(FLAGS_metrics);
    c.plot = absl::GetFlag(FLAGS_plot);
    c.profile = absl::GetFlag(FLAGS_profile);
    c.profile_steps = absl::GetFlag(FLAGS_profile_steps);
    c.graph = absl::GetFlag(FLAGS_graph);
    c.memory_report = absl::GetFlag(FLAGS_memory_report);
    c.nproc = absl::GetFlag(FLAGS_nproc);
    c.nnodes = absl::GetFlag(FLAGS_nnodes);
    c.node_rank = absl::GetFlag(FLAGS_node_rank);
    c.master_addr = absl::GetFlag(FLAGS_master_addr);
    c.master_port = absl::GetFlag(FLAGS_master_port);
    c.train_samples = absl::GetFlag(FLAGS_train_samples);
    c.test_samples = absl::GetFlag(FLAGS_test_samples);
    const std::string progress = absl::GetFlag(FLAGS_progress);
    if (progress == "auto") {
      c.progress = tools::train::Config::Progress::kAuto;
    } else if (progress == "bar") {
      c.progress = tools::train::Config::Progress::kBar;
    } else if (progress == "lines") {
      c.progress = tools::train::Config::Progress::kLines;
    } else if (progress == "quiet") {
      c.progress = tools::train::Config::Progress::kQuiet;
    } else {
      std::fprintf(stderr, "train: error: --progress must be auto, bar, lines or quiet, got '%s'\n",
                   progress.c_str());
      return 1;
    }
    // --nproc/--nnodes: this process starts the job's processes on this
    // machine (itself again, with the launcher's environment) and waits;
    // See Note [Data-parallel training] in tools/train/data_parallel.cc.
    if ((c.nproc != 1 || c.nnodes != 1) && std::getenv("WORLD_SIZE") == nullptr) {
      auto narrow = [](int64_t v) { return static_cast<int>(std::max<int64_t>(-1, std::min<int64_t>(v, 1 << 20))); };
      tools::launch::Options lo;
      lo.nproc = narrow(c.nproc);
      lo.nnodes = narrow(c.nnodes);
      lo.node_rank = narrow(c.node_rank);
      lo.master_addr = c.master_addr;
      lo.master_port = narrow(c.master_port);
      const std::string problem = tools::launch::check(lo);
      if (!problem.empty()) {
        std::fprintf(stderr, "train: error: %s\n", problem.c_str());
        return 1;
      }
      std::vector<std::string> args = {"/proc/self/exe"};
      for (int i = 1; i < argc; ++i) args.emplace_back(original[i]);
      std::fflush(stdout);
      return tools::launch::run(lo, args);
    }
    tools::train::Result r = tools::train::train(c, std::cout);
    // Data-parallel: rank 0 alone reports.
    const char* rank = std::getenv("RANK");
    if (rank != nullptr && std::string(rank) != "0") return 0;
    const double mib = 1024.0 * 1024.0;
    std::printf("test accuracy %.2f%% after %zu epochs; peak memory %.0f MiB (data set %.0f MiB "
                "+ model %.1f MiB)\n",
                100 * r.epochs.back().test_accuracy, r.epochs.size(), r.peak_rss_bytes / mib,
                r.dataset_bytes / mib, r.model_bytes / mib);
    if (!c.metrics.empty()) std::printf("metrics: %s\n", c.metrics.c_str());
    if (!c.plot.empty()) std::printf("plot: %s\n", c.plot.c_str());
    // The report is the result: a lost one (stdout on a full disk) fails.
    std::cout.flush();
    if (!std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "train: error: cannot write the results to standard output: %s\n",
                   std::strerror(errno));
      return 1;
    }
    return 0;
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "train: error: %s\n", e.what_without_backtrace());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train: error: %s\n", e.what());
  }
  return 1;
}
