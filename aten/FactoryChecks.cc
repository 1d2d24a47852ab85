// aten/FactoryChecks.cc — see FactoryChecks.h. The words are the CPU
// plugin's (tests/ops/factories_test.cc asserts them).
#include "aten/FactoryChecks.h"

#include <cmath>

#include "c10/util/Exception.h"

namespace at {
namespace native {

int64_t arange_length(const c10::Scalar& start, const c10::Scalar& end,
                      const c10::Scalar& step, c10::ScalarType dtype) {
  TORCH_CHECK(dtype != c10::kBool, "arange: dtype Bool is not supported. Pass "
              "an integral or floating dtype.");
  const bool integral = c10::isIntegralType(dtype, /*includeBool=*/false);
  const double xstart = start.toDouble();
  const double xend = end.toDouble();
  const double xstep = step.toDouble();
  TORCH_CHECK(std::isfinite(xstart) && std::isfinite(xend), "arange: unsupported "
              "range ", xstart, " -> ", xend, "; start and end must be finite.");
  const int64_t istep = integral ? step.toLong() : 0;
  TORCH_CHECK(integral ? istep != 0 : xstep != 0, "arange: step must be nonzero, "
              "but got step=", step, ". Pass a positive step to count up or a "
              "negative one to count down.");
  TORCH_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
              "arange: upper bound and larger bound inconsistent with step sign: "
              "start=", start, ", end=", end, ", step=", step, ". Pass a positive "
              "step when end >= start and a negative one when end <= start.");
  if (integral) {
    // ceil((end - start) / step) in 128 bits: |size| <= |span| < 2^64, and
    // >= 0 by the sign check.
    const __int128 span = static_cast<__int128>(end.toLong()) - start.toLong();
    const __int128 size = (span + istep + (istep > 0 ? -1 : 1)) / istep;
    return static_cast<int64_t>(size);
  }
  const double size_d = std::ceil((xend - xstart) / xstep);
  TORCH_CHECK(size_d >= 0 && size_d < 9.2233720368547758e18, "arange: the "
              "range ", xstart, " -> ", xend, " with step ", xstep, " has too "
              "many elements (", size_d, "). Pass a larger step.");
  return static_cast<int64_t>(size_d);
}

void check_linspace(int64_t steps, c10::ScalarType dtype) {
  TORCH_CHECK(steps >= 0, "linspace: number of steps must be non-negative, but "
              "got steps=", steps, ".");
  TORCH_CHECK(dtype != c10::kBool, "linspace: dtype Bool is not "
              "supported. Pass an integral or floating dtype.");
}

void check_eye(int64_t n, int64_t m) {
  TORCH_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n, ".");
  TORCH_CHECK(m >= 0, "eye: m must be greater or equal to 0, got ", m, ".");
}

}  // namespace native
}  // namespace at
