// The message of the c10::Error a callable throws, for asserting on it:
//   EXPECT_THAT(ember_test::errorOf([&] { op(bad); }), HasSubstr("expected …"));
// Returns "<no error>" when nothing is thrown, so the assertion fails with a
// readable diff.
#pragma once

#include <string>
#include <utility>

#include "c10/util/Exception.h"

namespace ember_test {

template <class F>
std::string errorOf(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "<no error>";
}

}  // namespace ember_test
