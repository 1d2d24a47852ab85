// tools/train/trainer.h — the training job behind `./bazelw run //tools:train`.
//
// The flags of tools/train/main.cc fill a Config; train() runs it:
//
//   tools::train::Config config;          // MLP, Fashion-MNIST, SGD 0.1 m0.9
//   config.epochs = 1;
//   tools::train::Result r = tools::train::train(config, std::cout);
//   // r.epochs.back().test_accuracy
//
// Everything a user can get wrong (paths, flag values, data files, a
// checkpoint that does not fit the model) throws c10::Error with a message
// that says what and how to fix it; main() prints it and exits with 1.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "tools/train/memory_report.h"

namespace tools {
namespace train {

struct Config {
  std::string model = "mlp";        // mlp | cnn
  int64_t epochs = 3;
  int64_t batch_size = 128;
  double lr = 0.1;
  std::string optimizer = "sgd";    // sgd (momentum 0.9) | adam
  std::string schedule = "constant";  // constant | cosine (annealed to 0 over the epochs)
  int64_t threads = 0;              // 0: every core of the machine
  std::string device = "cpu";       // cpu | cuda
  uint64_t seed = 1;
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string save;                 // checkpoint written after every epoch
  std::string resume;               // checkpoint to continue from
  std::string metrics;              // CSV of the per-epoch figures
  std::string plot;                 // PNG drawn with gnuplot
  std::string profile;              // Chrome trace of the first profile_steps steps
  int64_t profile_steps = 5;        // steps the profiler records (with `profile`)
  std::string graph;                // Graphviz DOT of the first step's autograd graph
  bool memory_report = false;       // measure and print tensor memory by category
  // Data-parallel (main.cc starts the processes; tools/train/data_parallel.h).
  int64_t nproc = 1;                // processes on this machine
  int64_t nnodes = 1;               // machines
  int64_t node_rank = 0;            // this machine's index
  std::string master_addr = "127.0.0.1";  // rank 0's machine
  int64_t master_port = 0;          // 0: a free port (one machine)
  int64_t train_samples = 0;        // 0: all; else the first N (quick runs)
  int64_t test_samples = 0;         // 0: all
  // Progress: a bar redrawn in place (a terminal) or one line per epoch.
  enum class Progress { kAuto, kBar, kLines, kQuiet };
  Progress progress = Progress::kAuto;
};

struct EpochStats {
  int64_t epoch = 0;                // 1-based
  double train_loss = 0;            // mean over the epoch's samples
  double test_accuracy = 0;         // in [0, 1]
  double seconds = 0;               // training time of the epoch
  double samples_per_second = 0;
};

struct Result {
  std::vector<EpochStats> epochs;   // every epoch, including resumed ones
  int64_t parameters = 0;           // number of trainable values
  int64_t dataset_bytes = 0;        // decoded train + test images and labels
  int64_t model_bytes = 0;          // parameters and buffers
  int64_t peak_rss_bytes = 0;       // of the process, at the end
  MemoryReport memory;              // with Config::memory_report
};

// Checks the flag values (throws c10::Error naming the bad one).
void validate(const Config& config);

// Runs the whole job, reporting progress to `out`.
Result train(const Config& config, std::ostream& out);

}  // namespace train
}  // namespace tools
