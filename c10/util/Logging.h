// c10/util/Logging.h — libtorch's glog-style comparison checks:
// TORCH_CHECK_EQ / _NE / _LT / _LE / _GT / _GE, for programs written
// against libtorch.
//
//   TORCH_CHECK_EQ(x.dim(), 2) << "expected a matrix";
//   // throws c10::Error: "Check failed: x.dim() == 2 (3 vs. 2) expected a matrix"
//
// Both operands are evaluated once when the check passes and once more to
// format the message when it fails. Text streamed with `<<` is only
// formatted on failure.
//
// Difference from libtorch: libtorch's forms log and abort the process (as
// glog's CHECK_EQ); Ember's throw c10::Error, like TORCH_CHECK, so a caller
// can catch the failure. New Ember code should use TORCH_CHECK, whose
// message says how to fix the problem.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "c10/util/Exception.h"

namespace c10 {
namespace detail {

// The message of a failed TORCH_CHECK_<OP>, which throws when the full
// expression that created it ends (after every `<<` has run). Only ever
// created for a failed check, and never while another exception unwinds.
class CheckOpFailure {
 public:
  CheckOpFailure(const char* func, const char* file, uint32_t line)
      : func_(func), file_(file), line_(line) {}
  CheckOpFailure(const CheckOpFailure&) = delete;
  CheckOpFailure& operator=(const CheckOpFailure&) = delete;
  ~CheckOpFailure() noexcept(false) {
    torchCheckFail(func_, file_, line_, stream_.str());
  }
  std::ostream& stream() { return stream_; }

 private:
  const char* func_;
  const char* file_;
  uint32_t line_;
  std::ostringstream stream_;
};

}  // namespace detail
}  // namespace c10

// The `for` makes the macro one statement that takes a trailing `<< …` and
// is safe inside an unbraced if/else.
#define C10_CHECK_OP_(val1, val2, op)                                                  \
  for (bool c10_check_op_ok_ = static_cast<bool>((val1)op(val2)); !c10_check_op_ok_;   \
       c10_check_op_ok_ = true)                                                        \
  ::c10::detail::CheckOpFailure(__func__, __FILE__, static_cast<uint32_t>(__LINE__))   \
          .stream()                                                                    \
      << "Check failed: " #val1 " " #op " " #val2 " (" << (val1) << " vs. " << (val2) \
      << ") "

#define TORCH_CHECK_EQ(val1, val2) C10_CHECK_OP_(val1, val2, ==)
#define TORCH_CHECK_NE(val1, val2) C10_CHECK_OP_(val1, val2, !=)
#define TORCH_CHECK_LT(val1, val2) C10_CHECK_OP_(val1, val2, <)
#define TORCH_CHECK_LE(val1, val2) C10_CHECK_OP_(val1, val2, <=)
#define TORCH_CHECK_GT(val1, val2) C10_CHECK_OP_(val1, val2, >)
#define TORCH_CHECK_GE(val1, val2) C10_CHECK_OP_(val1, val2, >=)
