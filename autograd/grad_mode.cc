#include "autograd/grad_mode.h"

namespace at {
namespace {
thread_local bool tls_grad_enabled = true;
thread_local bool tls_inference_mode = false;
}  // namespace

bool GradMode::is_enabled() { return tls_grad_enabled; }
void GradMode::set_enabled(bool enabled) { tls_grad_enabled = enabled; }

InferenceMode::InferenceMode(bool enabled)
    : prev_grad_(GradMode::is_enabled()),
      prev_inference_(tls_inference_mode),
      prev_keys_(c10::impl::tls_local_dispatch_key_set()) {
  if (!enabled) return;
  GradMode::set_enabled(false);
  tls_inference_mode = true;
  c10::impl::LocalDispatchKeySet keys = prev_keys_;
  keys.excluded_ = keys.excluded_ | c10::autograd_dispatch_keyset |
                   c10::DispatchKeySet(c10::DispatchKey::ADInplaceOrView);
  c10::impl::_force_tls_local_dispatch_key_set(keys);
}

InferenceMode::~InferenceMode() {
  GradMode::set_enabled(prev_grad_);
  tls_inference_mode = prev_inference_;
  c10::impl::_force_tls_local_dispatch_key_set(prev_keys_);
}

bool InferenceMode::is_enabled() { return tls_inference_mode; }

}  // namespace at
