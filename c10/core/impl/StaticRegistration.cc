// c10/core/impl/StaticRegistration.cc — the reporter slot.
#include "c10/core/impl/StaticRegistration.h"

#include <atomic>
#include <utility>

namespace c10 {
namespace impl {
namespace {

// Constant-initialized (no dynamic initializer), so it may be read from any
// library's static initializers whatever their order.
std::atomic<StaticRegistrationErrorReporter> g_reporter{nullptr};

}  // namespace

void set_static_registration_error_reporter(
    StaticRegistrationErrorReporter reporter) noexcept {
  // Release pairs with the acquire in report_static_registration_error. The
  // reporter is a function of the core (no data to publish), so any order
  // that makes the pointer visible would do; release/acquire costs nothing
  // on a path taken once per plugin error.
  g_reporter.store(reporter, std::memory_order_release);
}

bool report_static_registration_error(std::exception_ptr error) noexcept {
  StaticRegistrationErrorReporter reporter =
      g_reporter.load(std::memory_order_acquire);
  return reporter != nullptr && reporter(std::move(error));
}

}  // namespace impl
}  // namespace c10
