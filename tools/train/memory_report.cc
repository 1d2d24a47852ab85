// tools/train/memory_report.cc — See Note [What --memory-report measures].
#include "tools/train/memory_report.h"

#include <cstdio>

#include "c10/core/CPUAllocator.h"

namespace tools {
namespace train {

int64_t tensor_bytes_in_use() { return c10::cpu_allocator_stats().bytes_in_use; }

std::string memory_report_text(const MemoryReport& m) {
  std::string out = "memory report (tensor memory, measured with the CPU allocator's counters):\n";
  auto line = [&out](const char* what, int64_t bytes) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "  %-40s %10.2f MiB\n", what,
                  static_cast<double>(bytes) / (1024.0 * 1024.0));
    out += buf;
  };
  line("data set (train and test, normalised)", m.dataset);
  line("parameters and buffers", m.parameters);
  line("gradients", m.gradients);
  line("optimizer state", m.optimizer_state);
  line("activations saved by forward (a batch)", m.activations);
  line("other at the peak (batches, temporaries)", m.other_at_peak());
  line("peak during a training step", m.step_peak);
  out += c10::cpu_memory_summary();
  return out;
}

}  // namespace train
}  // namespace tools
