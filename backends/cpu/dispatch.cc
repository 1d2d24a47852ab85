#include "backends/cpu/dispatch.h"

namespace ember::cpu {
namespace detail {

void dispatch_fail(const char* op, c10::ScalarType t, TypeSet set) {
  const char* supported = set == TypeSet::kFloating ? "floating dtypes (Float, "
                          "Double, Half, BFloat16)"
                          : set == TypeSet::kAllButBool ? "numeric dtypes (not Bool)"
                                                        : "the ten dtypes";
  TORCH_CHECK_NOT_IMPLEMENTED(false, op, ": the CPU kernel is not implemented "
                              "for dtype ", t, "; it supports ", supported,
                              ". Convert the tensor with .to(dtype) first.");
  C10_THROW_ERROR(NotImplementedError, op, ": unsupported dtype ", t, ".");
}

}  // namespace detail
}  // namespace ember::cpu
