// tests/aten/decomposition_test_util.h — the comparison the decomposition
// tests make: same shape and dtype, values within `tol` (relative and
// absolute).
#pragma once

#include <gtest/gtest.h>

#include <ATen/ATen.h>

namespace ember_test {

inline void expect_close(const at::Tensor& a, const at::Tensor& b, double tol = 1e-6) {
  ASSERT_EQ(a.sizes(), b.sizes());
  ASSERT_EQ(a.scalar_type(), b.scalar_type());
  EXPECT_TRUE(at::allclose(a, b, tol, tol)) << a << "\n" << b;
}

}  // namespace ember_test
