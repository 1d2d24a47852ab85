// registration/RegistrationHandleRAII.h — undoes one registration when destroyed.
#pragma once

#include <functional>
#include <utility>

namespace c10 {

// c10::RegistrationHandleRAII
//
// Move-only. Destroying it (or calling reset()) removes exactly the
// registration that produced it. Not thread-safe itself; the removal takes
// the dispatcher's lock.
class RegistrationHandleRAII final {
 public:
  RegistrationHandleRAII() = default;
  explicit RegistrationHandleRAII(std::function<void()> on_destroy)
      : on_destroy_(std::move(on_destroy)) {}
  ~RegistrationHandleRAII() { reset(); }
  RegistrationHandleRAII(RegistrationHandleRAII&& other) noexcept
      : on_destroy_(std::exchange(other.on_destroy_, nullptr)) {}
  RegistrationHandleRAII& operator=(RegistrationHandleRAII&& other) noexcept {
    if (this != &other) {
      reset();
      on_destroy_ = std::exchange(other.on_destroy_, nullptr);
    }
    return *this;
  }
  RegistrationHandleRAII(const RegistrationHandleRAII&) = delete;
  RegistrationHandleRAII& operator=(const RegistrationHandleRAII&) = delete;

  void reset() {
    if (on_destroy_) std::exchange(on_destroy_, nullptr)();
  }

 private:
  std::function<void()> on_destroy_;
};

}  // namespace c10
