// backends/cpu/reductions.h — the CPU plugin's reductions beyond
// kernels.h's sum/mean/amax/amin/max.dim/min.dim/argmax/argmin: their out=
// variants, max()/min() over everything, prod, cumsum, var/std (and
// var_mean/std_mean), norm, logsumexp, all and any; plus the argument
// helpers every reduction shares.
//
//   at::Tensor v = ember::cpu::var_correction(x, {{1}}, /*correction=*/1,
//                                             /*keepdim=*/false);
//
// Each kernel is declared in the generated CPUKernels.h and registered by
// RegisterCPU.cc (`dispatch=CPU:...` in aten/native_functions); programs
// reach them through at::var, Tensor::prod,
// … Inputs may have any strides. Errors throw c10::Error. Internal to the
// CPU plugin (tests may call the kernels directly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "aten/ReduceUtils.h"
#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "backends/cpu/dispatch.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"

namespace ember::cpu {

// ---- helpers shared by the reduction kernels (reductions_sum_minmax.cc) --------

// Refuses an undefined input and one with more dims than reductions_loops.h
// handles.
void reduce_check_input(const at::Tensor& self, const char* op);

// The argument handling every backend shares (aten/ReduceUtils.h).
using at::native::reduce_check_nonempty;
using at::native::reduce_dim_mask;
using at::native::reduce_one_dim_mask;
using at::native::reduce_shape;
using at::native::reduce_write_out;

// The input as `dtype`: itself, or a converted contiguous copy.
at::Tensor reduce_as_dtype(const at::Tensor& self, c10::ScalarType dtype, const char* op);

// Note [Sum accumulation]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Sums (sum, mean, prod, cumsum) accumulate float and double in double,
// Half and BFloat16 in float (as PyTorch), integers in a wrapping unsigned
// type (results wrap like PyTorch's), bools as logical or. A contiguous run
// is folded in blocks of kSumBlock elements into eight independent
// accumulators each (several adds in flight per cycle, and each partial sum
// stays short); the block sums are then added up, so a float sum's error
// grows with n / kSumBlock rather than with n, as PyTorch's cascade sum.
// One exception: prod multiplies runs of 16 floats per lane in float before
// the double product (Note [Float products in float steps] in
// reductions_prod_var_logical.cc); PyTorch's is float throughout.
template <typename T, typename Enable = void>
struct SumAcc {
  using type = std::conditional_t<is_reduced_float_v<T>, float, double>;
};
template <typename T>
struct SumAcc<T, std::enable_if_t<std::is_integral_v<T>>> {
  using type = wrap_t<T>;
};
template <>
struct SumAcc<bool> {
  using type = bool;
};
template <typename T>
using sum_acc_t = typename SumAcc<T>::type;

constexpr int64_t kSumBlock = 4096;

// How far ahead sum, mean and prod of a contiguous run in memory prefetch,
// one cache line at a time: See Note [Sum prefetch] in
// reductions_sum_minmax.cc.
constexpr int64_t kReducePrefetchBytes = 6144;

// Prefetches the cache lines of the `bytes` bytes that start
// kReducePrefetchBytes past `p`.
inline void prefetch_ahead(const void* p, size_t bytes) {
  const char* ahead = static_cast<const char*>(p) + kReducePrefetchBytes;
  for (size_t line = 0; line < bytes; line += 64) __builtin_prefetch(ahead + line);
}

// Half widened to float 8 at a time, for sum, mean and norm: See Note [Half
// sums in vectors] in reductions_sum_minmax.cc.
typedef float float8 __attribute__((vector_size(32)));

// Whether sum's and norm's lanes widen T 8 at a time: Half where the
// capability has F16C. (BFloat16's conversion is a shift that GCC vectorizes
// in the element-wise lanes already.)
template <typename T>
constexpr bool kWidensInVectors =
#if defined(__F16C__)
    std::is_same_v<T, c10::Half>;
#else
    false;
#endif

// acc += the 8 numbers at p, as floats, where kWidensInVectors<T> (by
// reference: a 32-byte vector returned by value changes the ABI).
template <typename T>
inline void add_widened8(float8& acc, const T* __restrict p) {
  static_assert(kWidensInVectors<T>, "Half, in a build with F16C");
#if defined(__F16C__)
  __m128i h;
  std::memcpy(&h, p, sizeof h);
  acc += _mm256_cvtph_ps(h);
#endif
}

// ember::cpu::sum_float_block — the sum of n contiguous floats (a block of at
// most kSumBlock), in double lanes, as sum() adds them (Note [Float sums at
// memory speed]); logsumexp sums its exponentials with it.
double sum_float_block(const float* p, int64_t n);

// ---- out= variants of kernels.h's reductions, and max()/min() (reductions_sum_minmax.cc)
// The largest/smallest element, 0-dim; NaN if any element is NaN. The input
// must have elements.

// ---- products (reductions_prod_var_logical.cc), running sums (reductions_scan.cc)
// prod: integral and bool inputs give Long unless `dtype` is given (the
// input is converted to it first); an empty product is 1.
// cumsum: the running sum along `dim`; dtypes as sum. In-place and out=
// results take the dtype of self/out (a `dtype` argument must match it).

// ---- variance and standard deviation (reductions_prod_var_logical.cc) ------------
// Floating inputs only; the result has the input's dtype. The sum of squared
// deviations is divided by max(0, N - correction) (N elements per result,
// correction 1 by default); a warning says when that is <= 0. An empty
// reduction gives NaN.
// (var, mean) and (std, mean) in one pass.

// ---- norms and logsumexp (reductions_norm.cc) ------------------------------------------
// The vector p-norm over `dim` (all dims when empty or none): p = 0 counts
// nonzeros, inf/-inf take the largest/smallest |x|, others (sum |x|^p)^(1/p).
// Floating inputs only; `dtype` (floating) converts the input first.
// norm: as linalg_vector_norm, p = none meaning 2.
// log(sum(exp(x))) over `dim` (all dims when empty), without overflow:
// the largest element is factored out. Integral inputs give Float.

// ---- all and any (reductions_prod_var_logical.cc) -----------------------------------
// Whether every/some element is nonzero. Bool results, uint8 for uint8
// inputs; out= takes Bool or uint8. all of nothing is true, any false.

}  // namespace ember::cpu
