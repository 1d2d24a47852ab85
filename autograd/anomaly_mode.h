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

#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace autograd {

struct Node;

// torch::autograd::AnomalyMode
//
// The process-wide switch. Thread-safe; a backward pass running while it is
// flipped sees the change from some Node on.
struct AnomalyMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// torch::autograd::DetectAnomalyGuard
//
// Turns anomaly mode on for its scope and restores the previous setting.
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard();
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_;
};

namespace detail {

// The engine's check of a Node's outputs while anomaly mode is on: throws
// c10::Error naming `fn`, the output index and the forward op when a
// floating gradient holds a NaN.
void check_anomaly(const Node& fn, const std::vector<at::Tensor>& grads);

}  // namespace detail
}  // namespace autograd
}  // namespace torch
