// autograd/anomaly_mode.h — checks every gradient a backward Node produces
// for NaN, naming the Node and the forward op that created it.
//
//   torch::autograd::DetectAnomalyGuard detect;   // or AnomalyMode::set_enabled(true)
//   loss.backward();   // throws "Function 'LogBackward0' returned nan values in
//                      //  its 0th output. ... forward op: aten::log"
//
// Process-wide, off by default: it costs a scan of every gradient, and the
// autograd kernels record the forward op's name on each Node while it is on.
#pragma once

namespace torch {
namespace autograd {

struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Turns anomaly mode on for its scope.
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard();
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace autograd
}  // namespace torch
