// autograd/profiler.h — torch::profiler::profile: records every op the
// dispatcher calls, every autograd Node the engine runs and every user range
// (RECORD_FUNCTION, RECORD_USER_SCOPE) while it is alive, then makes a table
// like PyTorch's key_averages().table() and a Chrome trace (Perfetto,
// chrome://tracing).
//
//   torch::profiler::ProfilerOptions options;
//   options.record_shapes = true;
//   torch::profiler::profile prof(options);
//   loss = model.forward(x).sum();
//   loss.backward();
//   prof.stop();
//   std::cout << prof.key_averages().table("self_cpu_time_total", 15);
//   prof.export_chrome_trace("trace.json");
//
// The trace has one track per thread (the thread that called backward() and
// the engine's device threads among them) and a flow arrow from each forward
// op to the backward Node it made. docs/profiling.md shows how to read both.
//
// One profile records at a time (a second one throws). The profile object
// itself is not thread-safe: start, stop and read it from one thread; the
// recording works on every thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "registration/record_function.h"

namespace torch {
namespace profiler {

// torch::profiler::ProfilerOptions
struct ProfilerOptions {
  // Record each op's input sizes and dtypes (the trace's "Input Dims";
  // key_averages(true) groups by them).
  bool record_shapes = false;
  // Record, for each range, the user ranges open around it (the trace's
  // "Call stack").
  bool with_stack = false;
  // Record every allocation and free of tensor memory: the table gains the
  // "CPU Mem" and "Self CPU Mem" columns (bytes allocated minus freed inside
  // each range), the trace gains "[memory]" instant events and a counter of
  // the bytes allocated.
  bool profile_memory = false;
  // See Note [Profiler event cap] in registration/record_function.h.
  size_t max_events_per_thread = size_t{1} << 20;
};

// torch::profiler::FunctionEventAvg — one row of key_averages().
struct FunctionEventAvg {
  std::string key;           // the range's name, e.g. "aten::mm"
  std::string input_shapes;  // with group_by_input_shape, e.g. "[[2, 3], [3, 4]]"
  int64_t count = 0;
  // Self time excludes the ranges nested inside on the same thread; total
  // time includes them.
  int64_t self_cpu_time_total_ns = 0;
  int64_t cpu_time_total_ns = 0;
  // With profile_memory: bytes allocated minus bytes freed while the range
  // ran, on its thread; self excludes the ranges nested inside. The row
  // "[memory]" sums every allocation and free.
  int64_t self_cpu_memory_usage = 0;
  int64_t cpu_memory_usage = 0;
};

// torch::profiler::KeyAverages
class KeyAverages {
 public:
  std::vector<FunctionEventAvg> rows;

  // The sum of every range's self time: the time covered by the outermost
  // ranges of each thread.
  int64_t self_cpu_time_total_ns() const;

  // A text table: Name, Self CPU %, Self CPU, CPU total %, CPU total,
  // CPU time avg, CPU Mem and Self CPU Mem (with profile_memory), # of
  // Calls (and Input Shapes when grouped by them), sorted by `sort_by`,
  // descending: one of "cpu_time_total", "self_cpu_time_total", "cpu_time"
  // (the average), "count", "cpu_memory_usage", "self_cpu_memory_usage". At most
  // `row_limit` rows (all if negative).
  std::string table(const std::string& sort_by = "cpu_time_total",
                    int64_t row_limit = 100) const;

 private:
  friend class profile;
  bool grouped_by_input_shape_ = false;
  bool with_memory_ = false;
};

// torch::profiler::profile
//
// Records from construction until stop() (or destruction).
class profile {
 public:
  explicit profile(ProfilerOptions options = ProfilerOptions());
  ~profile();
  profile(const profile&) = delete;
  profile& operator=(const profile&) = delete;

  // Ends the recording (idempotent). The readers below call it.
  void stop();
  bool is_recording() const { return recording_; }

  // Every recorded range, all threads, sorted by thread, then start time.
  const std::vector<at::ProfilerEvent>& events();
  // With profile_memory: every allocation and free (MEMORY events), in time
  // order.
  const std::vector<at::ProfilerEvent>& memory_events();
  // How many events the cap dropped.
  size_t dropped_events();

  KeyAverages key_averages(bool group_by_input_shape = false);
  // The trace as Chrome's JSON trace event format.
  std::string chrome_trace();
  // Writes chrome_trace() to `path`; throws with the path and the system's
  // reason if it cannot.
  void export_chrome_trace(const std::string& path);

 private:
  void attribute_memory();

  ProfilerOptions options_;
  bool recording_ = false;
  std::vector<at::ProfilerEvent> events_;
  // Per event, the index of the range it is nested in on its thread, or -1.
  std::vector<int64_t> parent_;
  std::vector<at::ProfilerEvent> memory_events_;
  // Per range: bytes allocated minus freed inside it, in total and itself.
  std::vector<int64_t> memory_, self_memory_;
  // The CPU allocator's bytes in use when the recording started.
  int64_t memory_baseline_ = 0;
  size_t dropped_ = 0;
};

}  // namespace profiler
}  // namespace torch
