// tools/train/memory_report.h — //tools:train --memory-report: tensor memory
// by category, measured with the CPU allocator's counters while the job
// runs, and printed with the allocator's summary (docs/profiling.md).
//
// Note [What --memory-report measures]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every figure is bytes of tensor memory in use (c10::cpu_allocator_stats()),
// read around the code that makes it:
//   data set         growth while the splits are read and normalised;
//   parameters       growth while the model is built (buffers included);
//   activations      growth during the first step's forward: the tensors the
//                    graph saved for backward, and the loss;
//   gradients        the .grad tensors after the first backward;
//   optimizer state  growth during the first optimizer step (Adam's moments,
//                    SGD's momentum buffers);
//   step peak        the highest bytes in use during a training step (the
//                    allocator's peak, reset before each step; steps after
//                    the first when there are any, so that the optimizer
//                    state exists);
//   other at peak    step peak minus the categories: the batch in use and
//                    the temporaries of that moment.
// The counters are the process's, so nothing else may allocate inside a
// window: with --memory-report the batches are made on the training thread,
// never by a loader thread (whose prefetch, timed by the scheduler, once
// landed in Adam's optimizer state under TSan). Without it a loader thread,
// where one runs, holds one more batch than this report shows.
// Memory outside tensors (oneDNN's caches, the program) is not counted; the
// peak resident set size, printed beside, is the whole process.
#pragma once

#include <cstdint>
#include <string>

namespace tools {
namespace train {

struct MemoryReport {
  bool measured = false;
  int64_t dataset = 0;
  int64_t parameters = 0;
  int64_t gradients = 0;
  int64_t optimizer_state = 0;
  int64_t activations = 0;
  int64_t step_peak = 0;
  int64_t other_at_peak() const {
    return step_peak - dataset - parameters - gradients - optimizer_state - activations;
  }
};

// The CPU allocator's bytes in use now.
int64_t tensor_bytes_in_use();

// The report as train() prints it, followed by c10::cpu_memory_summary().
std::string memory_report_text(const MemoryReport& m);

}  // namespace train
}  // namespace tools
