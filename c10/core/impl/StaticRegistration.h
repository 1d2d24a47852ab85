// c10/core/impl/StaticRegistration.h — how c10's registration macros report
// an error raised while a plugin is being loaded.
//
// A registration made from a static initializer (C10_REGISTER_GUARD_IMPL,
// C10_REGISTER_DEFAULT_GENERATOR) must not let an exception escape while the
// dynamic loader runs the initializer. The plugin loader lives above c10
// (registration/plugin_loader.h), so c10 cannot call it; instead the loader
// installs a reporter here when the core is loaded, and c10's registrars
// catch and hand the exception over:
//
//   try { handle_ = register...(...); } catch (...) {
//     if (!c10::impl::report_static_registration_error(std::current_exception()))
//       throw;
//   }
//
// Not for registrations made at run time: those throw to their caller.
#pragma once

#include <exception>

namespace c10 {
namespace impl {

// c10::impl::StaticRegistrationErrorReporter
//
// Keeps `error` and returns true if the calling thread is loading a plugin
// (the loader then unloads the plugin and throws the message); returns false
// otherwise, and the registrar rethrows.
using StaticRegistrationErrorReporter = bool (*)(std::exception_ptr) noexcept;

// c10::impl::set_static_registration_error_reporter
//
// Installs the reporter (the plugin loader does, once, when the core is
// loaded). Thread-safe.
void set_static_registration_error_reporter(
    StaticRegistrationErrorReporter reporter) noexcept;

// c10::impl::report_static_registration_error
//
// What the installed reporter returns for `error`; false if none is
// installed. Thread-safe.
bool report_static_registration_error(std::exception_ptr error) noexcept;

}  // namespace impl
}  // namespace c10
