// tools/train/progress.h — the per-epoch progress bar of //tools:train.
//
// On a terminal, update() redraws one line in place (at most ten times a
// second): batches done, samples per second, running loss, time left.
// Elsewhere (a pipe, a log file) it prints nothing and the trainer's
// per-epoch line is the whole report.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>

namespace tools {
namespace train {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, int64_t epoch, int64_t epochs, int64_t batches, bool enabled);
  void update(int64_t batches_done, int64_t samples_done, double running_loss);
  // Clears the bar's line, ready for the epoch's summary.
  void finish();

 private:
  void draw(int64_t batches_done, int64_t samples_done, double running_loss);

  std::ostream& out_;
  int64_t epoch_, epochs_, batches_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace train
}  // namespace tools
