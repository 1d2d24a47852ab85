// autograd/anomaly_mode.cc — the anomaly-mode switch and the NaN check the
// engine runs on every Node's outputs while it is on.
#include "autograd/anomaly_mode.h"

#include <atomic>

#include "aten/Functions.h"
#include "autograd/function.h"

namespace torch {
namespace autograd {

namespace {
// Relaxed: the flag orders no other data. A Node that reads it while another
// thread flips it either checks its outputs or does not; either is a
// consistent outcome, and the thread that set it sees its own store.
std::atomic<bool> g_anomaly_enabled{false};
}  // namespace

bool AnomalyMode::is_enabled() { return g_anomaly_enabled.load(std::memory_order_relaxed); }

void AnomalyMode::set_enabled(bool enabled) {
  g_anomaly_enabled.store(enabled, std::memory_order_relaxed);
}

DetectAnomalyGuard::DetectAnomalyGuard() : prev_(AnomalyMode::is_enabled()) {
  AnomalyMode::set_enabled(true);
}

DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }

namespace detail {

void check_anomaly(const Node& fn, const std::vector<at::Tensor>& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    const at::Tensor& g = grads[i];
    if (!g.defined() || !c10::isFloatingType(g.scalar_type()) || g.numel() == 0) continue;
    // NaN is the only value not equal to itself.
    const bool has_nan = at::eq(g, g).sum().item<int64_t>() != g.numel();
    TORCH_CHECK(!has_nan, "Function '", fn.name(), "' returned nan values in its ", i,
                "th output.", fn.forward_trace().empty() ? std::string()
                : c10::str(" It was created by the forward op ", fn.forward_trace(), "."));
  }
}

}  // namespace detail
}  // namespace autograd
}  // namespace torch
