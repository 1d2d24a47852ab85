// autograd/grad_mode.h — whether ops record autograd history on this thread.
//
//   {
//     torch::NoGradGuard no_grad;   // e.g. an optimizer step
//     w.sub_(lr * w.grad());        // not recorded
//   }
//   { at::InferenceMode guard; auto y = model(x); }   // no autograd at all
//
// GradMode is per thread and on by default. InferenceMode also excludes the
// autograd and ADInplaceOrView dispatch keys, so ops skip autograd entirely
// (they still bump version counters only through in-place kernels' own
// ADInplaceOrView layer, which it skips: tensors changed in place under
// InferenceMode do not see their version bumped). Unlike PyTorch, Ember has
// no separate "inference tensor" flag.
#pragma once

#include "c10/core/DispatchKeySet.h"
#include "c10/core/impl/LocalDispatchKeySet.h"

namespace at {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Sets grad mode for its scope, restoring the previous mode on exit.
struct AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// Disables grad mode for its scope.
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// Grad mode off and the autograd keys excluded for its scope.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool prev_grad_;
  bool prev_inference_;
  c10::impl::LocalDispatchKeySet prev_keys_;
};

}  // namespace at

namespace c10 {
using at::InferenceMode;
}  // namespace c10

namespace torch {
using at::AutoGradMode;
using at::GradMode;
using at::InferenceMode;
using at::NoGradGuard;
}  // namespace torch
