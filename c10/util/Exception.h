// c10/util/Exception.h — errors and warnings for all of Ember.
//
// User mistakes throw c10::Error (or a subclass) through TORCH_CHECK; bugs in
// Ember itself are reported with TORCH_INTERNAL_ASSERT. Warnings go through a
// replaceable, thread-local handler so tests and embedders can capture them.
//
//   TORCH_CHECK(dim < ndim, "select: dim ", dim, " is out of range for a ",
//               ndim, "-d tensor; pass a dim in [0, ", ndim, ").");
//   TORCH_WARN("to: copying a ", bytes, "-byte tensor to itself is a no-op.");
//
// The message parts are only formatted when the check fails, so a check on a
// hot path costs one predictable branch.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "c10/util/StringUtil.h"

#if defined(__GNUC__)
#define C10_LIKELY(x) __builtin_expect(static_cast<bool>(x), 1)
#define C10_UNLIKELY(x) __builtin_expect(static_cast<bool>(x), 0)
#define C10_NOINLINE __attribute__((noinline))
#define C10_COLD __attribute__((cold))
#else
#define C10_LIKELY(x) (x)
#define C10_UNLIKELY(x) (x)
#define C10_NOINLINE
#define C10_COLD
#endif

// C10_ASAN_ENABLED is 1 when building with AddressSanitizer (gcc defines
// __SANITIZE_ADDRESS__, clang answers __has_feature). Caches that recycle
// freed memory turn themselves off then: ASan's use-after-free checks need
// every block to go back to malloc.
#if defined(__SANITIZE_ADDRESS__)
#define C10_ASAN_ENABLED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define C10_ASAN_ENABLED 1
#endif
#endif
#ifndef C10_ASAN_ENABLED
#define C10_ASAN_ENABLED 0
#endif

namespace c10 {

// c10::SourceLocation
//
// Where an error or warning was raised. Pointers refer to string literals.
struct SourceLocation {
  const char* function;
  const char* file;
  uint32_t line;
};

std::ostream& operator<<(std::ostream& out, const SourceLocation& loc);

// c10::Error
//
// The exception every user-facing check throws. `what_without_backtrace()` is
// the message alone; `what()` adds the source location on a second line.
class Error : public std::exception {
 public:
  Error(SourceLocation location, std::string msg);
  // Out of line: the vtable and type info then live only in the core, so a
  // plugin's throw and the host's catch agree on one c10::Error type.
  ~Error() override;

  const std::string& msg() const { return msg_; }
  const SourceLocation& location() const { return location_; }
  const char* what() const noexcept override { return what_.c_str(); }
  const char* what_without_backtrace() const noexcept { return msg_.c_str(); }

  // Prepends context to the message, as layers that catch and rethrow do
  // ("while loading plugin …: <original>").
  void add_context(const std::string& context);

 private:
  void refresh_what();

  SourceLocation location_;
  std::string msg_;
  std::string what_;
};

// Subclasses for the Python-style categories; they map to ValueError,
// IndexError, TypeError and NotImplementedError in front-ends.
class ValueError : public Error {
  using Error::Error;
};
class IndexError : public Error {
  using Error::Error;
};
class TypeError : public Error {
  using Error::Error;
};
class NotImplementedError : public Error {
  using Error::Error;
};
// A device allocator could not get the memory (CUDA's caching allocator):
// a program may catch it, free memory or shrink the batch, and try again.
class OutOfMemoryError : public Error {
  using Error::Error;
};

// c10::Warning
//
// One warning: where it was raised and what it says.
class Warning {
 public:
  Warning(SourceLocation location, std::string msg)
      : location_(location), msg_(std::move(msg)) {}
  const SourceLocation& source_location() const { return location_; }
  const std::string& msg() const { return msg_; }

 private:
  SourceLocation location_;
  std::string msg_;
};

// c10::WarningHandler
//
// Receives every warning raised on the threads that use it. The default
// handler prints "Warning: <msg> (<location>)" to stderr.
class WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  virtual void process(const Warning& warning);
};

namespace WarningUtils {

// Sets the handler of the calling thread (nullptr restores the default).
// The handler is borrowed: it must outlive its use.
void set_warning_handler(WarningHandler* handler) noexcept;
WarningHandler* get_warning_handler() noexcept;

// c10::WarningUtils::WarningHandlerGuard
//
// Installs a handler for the calling thread for the guard's lifetime.
class WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler* handler)
      : previous_(get_warning_handler()) {
    set_warning_handler(handler);
  }
  ~WarningHandlerGuard() { set_warning_handler(previous_); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler* previous_;
};

}  // namespace WarningUtils

// Sends a warning to the calling thread's handler.
void warn(const Warning& warning);

namespace detail {

[[noreturn]] C10_NOINLINE C10_COLD void torchCheckFail(const char* func,
                                             const char* file, uint32_t line,
                                             const std::string& msg);
[[noreturn]] C10_NOINLINE C10_COLD void torchCheckFailValue(const char* func,
                                                  const char* file,
                                                  uint32_t line,
                                                  const std::string& msg);
[[noreturn]] C10_NOINLINE C10_COLD void torchCheckFailIndex(const char* func,
                                                  const char* file,
                                                  uint32_t line,
                                                  const std::string& msg);
[[noreturn]] C10_NOINLINE C10_COLD void torchCheckFailType(const char* func,
                                                 const char* file,
                                                 uint32_t line,
                                                 const std::string& msg);
[[noreturn]] C10_NOINLINE C10_COLD void torchCheckFailNotImplemented(
    const char* func, const char* file, uint32_t line, const std::string& msg);
[[noreturn]] C10_NOINLINE C10_COLD void torchInternalAssertFail(const char* func,
                                                      const char* file,
                                                      uint32_t line,
                                                      const char* condition,
                                                      const std::string& msg);

// The message of a failed TORCH_CHECK: the user's parts, or, with none, a
// sentence naming the condition.
template <typename... Args>
std::string checkMsg(const char* condition, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return c10::str("Expected ", condition, " to be true, but got false.");
  } else {
    return c10::str(args...);
  }
}

}  // namespace detail
}  // namespace c10

// Note [Check macro shape]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// `do { if (!(cond)) fail(); } while (false)`: one statement, safe in an
// unbraced if/else (an `if … else (void)0` shape would trip -Wdangling-else
// in user code). No C10_UNLIKELY: the failure functions are [[noreturn]] and
// cold, which tells the compiler the same. At -O0 GCC does not always fold
// `TORCH_CHECK(false, …)` and may warn that control reaches the end of a
// non-void function; end such functions with C10_THROW_ERROR.
// `cond_text` is stringized by each public macro, not here: an argument is
// macro-expanded before it is passed on, so stringizing it one level down
// would print `n < 42` for `TORCH_CHECK(n < kMaxDims)` written with a macro.
#define C10_CHECK_IMPL_(fail_fn, cond, cond_text, ...)                \
  do {                                                                \
    if (!(cond)) {                                                    \
      ::c10::detail::fail_fn(                                         \
          __func__, __FILE__, static_cast<uint32_t>(__LINE__),        \
          ::c10::detail::checkMsg(cond_text, ##__VA_ARGS__));         \
    }                                                                 \
  } while (false)

// TORCH_CHECK(cond, parts...)
//
// Throws c10::Error with the concatenated parts when `cond` is false.
#define TORCH_CHECK(cond, ...) \
  C10_CHECK_IMPL_(torchCheckFail, cond, #cond, ##__VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) \
  C10_CHECK_IMPL_(torchCheckFailValue, cond, #cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) \
  C10_CHECK_IMPL_(torchCheckFailIndex, cond, #cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) \
  C10_CHECK_IMPL_(torchCheckFailType, cond, #cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) \
  C10_CHECK_IMPL_(torchCheckFailNotImplemented, cond, #cond, ##__VA_ARGS__)

// TORCH_CHECK_WITH(ErrorType, cond, parts...)
//
// TORCH_CHECK throwing c10::ErrorType (any of the classes above), as
// PyTorch's: TORCH_CHECK_WITH(OutOfMemoryError, ptr != nullptr, "...").
#define TORCH_CHECK_WITH(ErrorType, cond, ...)                               \
  do {                                                                       \
    if (!(cond)) {                                                           \
      throw ::c10::ErrorType(                                                \
          ::c10::SourceLocation{__func__, __FILE__,                          \
                                static_cast<uint32_t>(__LINE__)},            \
          ::c10::detail::checkMsg(#cond, ##__VA_ARGS__));                    \
    }                                                                        \
  } while (false)

// C10_THROW_ERROR(ErrorType, parts...)
//
// Throws c10::ErrorType (Error, ValueError, IndexError, TypeError,
// NotImplementedError, OutOfMemoryError) unconditionally, e.g. at the end of
// a switch.
#define C10_THROW_ERROR(ErrorType, ...)                                \
  throw ::c10::ErrorType(                                              \
      ::c10::SourceLocation{__func__, __FILE__,                        \
                            static_cast<uint32_t>(__LINE__)},          \
      ::c10::str(__VA_ARGS__))

// TORCH_INTERNAL_ASSERT(cond, parts...)
//
// For invariants of Ember itself: the message asks for a bug report.
#define TORCH_INTERNAL_ASSERT(cond, ...)                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      ::c10::detail::torchInternalAssertFail(                            \
          __func__, __FILE__, static_cast<uint32_t>(__LINE__), #cond,    \
          ::c10::str(__VA_ARGS__));                                      \
    }                                                                    \
  } while (false)

#ifdef NDEBUG
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(cond, ...) \
  do {                                              \
  } while (false && (cond))
#else
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(cond, ...) \
  TORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
#endif

// AT_ASSERT(cond, parts...) / AT_ERROR(parts...)
//
// libtorch's older spellings, kept for programs written against it:
// AT_ASSERT is TORCH_INTERNAL_ASSERT (an Ember-style bug report), AT_ERROR
// throws c10::Error with the parts unconditionally, as TORCH_CHECK(false, …).
// New code should use TORCH_CHECK / TORCH_INTERNAL_ASSERT. The glog-style
// TORCH_CHECK_EQ … family is in c10/util/Logging.h.
#define AT_ASSERT(cond, ...) TORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
#define AT_ERROR(...) C10_THROW_ERROR(Error, __VA_ARGS__)

// TORCH_WARN(parts...) / TORCH_WARN_ONCE(parts...)
//
// Sends a warning to the thread's handler; the _ONCE form fires once per
// call site per process.
#define TORCH_WARN(...)                                               \
  ::c10::warn(::c10::Warning(                                         \
      ::c10::SourceLocation{__func__, __FILE__,                       \
                            static_cast<uint32_t>(__LINE__)},         \
      ::c10::str(__VA_ARGS__)))

// The _ONCE form relies on a function-local static's thread-safe
// initialization. Its initializer is a plain expression, not a lambda, so
// __func__ still names the function the warning was raised in.
#define TORCH_WARN_ONCE(...)                                            \
  do {                                                                  \
    static const bool c10_warned_once_ = (TORCH_WARN(__VA_ARGS__), true); \
    (void)c10_warned_once_;                                             \
  } while (false)
