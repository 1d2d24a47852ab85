// The CPU plugin's reductions: sum, mean, amax, amin, max.dim, min.dim,
// argmax, argmin, their out= variants and max()/min(); and the argument
// helpers of reductions.h. Argument checks and output allocation are here;
// the loops are reductions_loops.h's, folding with the policies below.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "aten/WrapDimUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/reductions.h"
#include "backends/cpu/reductions_loops.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

// ---- arguments and shapes ---------------------------------------------------------------

void reduce_check_input(const at::Tensor& self, const char* op) {
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined; pass a "
              "defined tensor.");
  TORCH_CHECK(self.dim() <= kReduceMaxDims, op, ": the input has ", self.dim(),
              " dimensions, more than the ", kReduceMaxDims,
              " reductions support. Reshape it to fewer dimensions first.");
}

// The input as `dtype` (a converted copy when it differs).
at::Tensor reduce_as_dtype(const at::Tensor& self, c10::ScalarType dtype,
                           const char* op) {
  if (self.scalar_type() == dtype) return self;
  at::Tensor copy = empty_cpu(self.sizes(), dtype, op);
  copy_into(copy, self);
  return copy;
}

// Note [Float sums at memory speed]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Float sums accumulate in double (Note [Sum accumulation]): each element is
// widened, which with 8 double lanes (one dependent add per 512-bit vector)
// ran at 0.75x of memory speed (1.96 ms for 16M floats). 32 double lanes,
// four vectors in flight, take 1.78 ms. PyTorch's float accumulation takes
// 1.45 ms but is less exact (2^20 times 0.1f: 1.5e-7 off, where Ember is
// within 1e-7, tests/aten:reductions_test). Adding a few floats per lane in
// float before widening reached 1.31 ms but broke that bound (3e-7);
// compensated (Kahan) float steps kept it, at the double lanes' speed, so
// the plain double lanes stay (SumOps::block; sum_float_block for logsumexp).
//
// Note [Sum prefetch]
// ~~~~~~~~~~~~~~~~~~~
// Widening costs instructions per cache line (a load, a conversion and an
// add per four floats with AVX2), so fewer lines fit in the out-of-order
// window and fewer loads are in flight than in a float loop: on a 2-vCPU
// Zen 3 VM whose memory gives one thread ~10 GB/s, the double lanes read
// 16M floats in 8.3-8.6 ms where float lanes take 5.4-6.1 ms (a stand-alone
// loop, -O3 -mavx2). A software prefetch kReducePrefetchBytes ahead, one per
// cache line, keeps the memory busy: 6.5-7.7 ms in the same test. Only sum()
// and mean() of a run in memory prefetch: logsumexp's blocks
// (sum_float_block) are already in the cache. prod's float steps
// (Note [Float products in float steps]), amax's vectors (Note [Float max
// at memory speed]) and norm's double lanes (NormOps::run) prefetch the
// same way.
// The distance must cover the memory's latency at its bandwidth: 2048 bytes
// did on that Zen 3, but not on a 2-vCPU Intel Xeon (family 6 model 167,
// AVX-512) whose one thread reads ~28 GB/s: there, in a stand-alone loop
// (-O3 -march=x86-64-v4, best of 10, 4 rounds), the double lanes took
// 3.3-3.9 ms with 2048 bytes, 2.6-2.8 ms with 4096 and 2.34-2.36 ms with
// 6144 or 8192, where float lanes take 2.33-2.43 ms; sum() of 16M floats
// went from 3.6-4.5 ms to 2.5-3.0 ms (aten_bench, same run). 6144 bytes
// stay well inside every L1 data cache (32 KiB and up), so the lines
// fetched ahead are not evicted before they are read. The 2-norm of 16M
// floats, whose lanes are sum's with a multiply, took 4.8-5.0 ms there
// without a prefetch and 2.54-2.59 ms with it (aten_bench, 1 thread,
// 2026-12-04); with two threads it was at memory speed either way (1.36
// ms), so one thread's loads in flight, not the arithmetic, bound it.

namespace {

// ---- fold policies (See the Ops contract in reductions_loops.h) --------------------------

// Note [Half sums in vectors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// c10::Half's conversion to float is software, one element at a time: sum()
// of 16M Half numbers took 21-24 ms (libtorch the same), where the floats
// themselves take 2.5. add_widened8 (reductions.h) converts 8 at once with
// the capability's F16C instruction (the AVX2 and AVX-512 builds), and
// SumOps::block adds them into four 8-float vectors that are its 32 lanes,
// in the same order, so the sums are bit for bit those of the element-wise
// path: 1.16-1.33 ms. (Converting into an array that the lanes then read
// stalled on store forwarding: 7.5 ms.) The baseline build keeps the
// element-wise lanes for Half: filling the vectors one element at a time
// there made it 20% slower. BFloat16 is not widened so: its conversion is a
// shift, which GCC vectorizes in the element-wise lanes (sum of 16M 1.17 ms
// that way, 1.69 ms widened in vectors; norm 1.75 against 3.32 ms).

// See Note [Sum accumulation] in reductions.h.
// Sums (and means) of in_t elements converted to out_t; in_t is out_t, or
// an integral type summed into int64.
template <typename in_t_, typename out_t>
struct SumOps {
  using in_t = in_t_;
  using acc_t = sum_acc_t<out_t>;

  out_t* out;
  bool mean;
  int64_t count;  // mean: the number of elements reduced

  static acc_t load(in_t x) {
    if constexpr (std::is_same_v<acc_t, bool>) {
      return convert<bool>(x);
    } else if constexpr (is_reduced_float_v<out_t>) {
      return static_cast<float>(x);
    } else {
      return static_cast<acc_t>(convert<out_t>(x));
    }
  }
  static acc_t add(acc_t a, acc_t b) {
    if constexpr (std::is_same_v<acc_t, bool>) {
      return a || b;
    } else {
      return a + b;
    }
  }
  acc_t identity() const { return acc_t(0); }
  acc_t step(acc_t a, in_t x, int64_t) const { return add(a, load(x)); }
  acc_t merge(acc_t a, acc_t b) const { return add(a, b); }
  acc_t run(acc_t a, const in_t* p, int64_t n, int64_t stride, int64_t) const {
    if (stride != 1) {
      for (int64_t i = 0; i < n; ++i) a = add(a, load(p[i * stride]));
      return a;
    }
    for (int64_t b = 0; b < n; b += kSumBlock) {
      a = add(a, block</*kPrefetch=*/true>(p + b, std::min(kSumBlock, n - b)));
    }
    return a;
  }
  // One block of a contiguous run, in 32 independent lanes: 32 doubles are
  // four 512-bit vectors (sixteen 128-bit ones), enough adds in flight to
  // cover their latency. See Note [Float sums at memory speed].
  template <bool kPrefetch>
  static acc_t block(const in_t* __restrict p, int64_t n) {
    constexpr int kLanes = 32;
    acc_t s[kLanes] = {};
    int64_t i = 0;
    if constexpr (kWidensInVectors<in_t>) {  // See Note [Half sums in vectors].
      static_assert(std::is_same_v<acc_t, float> && kLanes == 32, "four float8 lanes");
      float8 v[4] = {};
      for (; i + kLanes <= n; i += kLanes) {
        if constexpr (kPrefetch) prefetch_ahead(p + i, kLanes * sizeof(in_t));
        for (int j = 0; j < 4; ++j) add_widened8(v[j], p + i + 8 * j);
      }
      std::memcpy(s, v, sizeof v);
    }
    for (; i + kLanes <= n; i += kLanes) {
      if constexpr (kPrefetch) {  // See Note [Sum prefetch].
        prefetch_ahead(p + i, kLanes * sizeof(in_t));
      }
      for (int k = 0; k < kLanes; ++k) s[k] = add(s[k], load(p[i + k]));
    }
    for (; i < n; ++i) s[0] = add(s[0], load(p[i]));
    for (int width = kLanes / 2; width > 0; width /= 2) {
      for (int k = 0; k < width; ++k) s[k] = add(s[k], s[k + width]);
    }
    return s[0];
  }
  void write(int64_t offset, acc_t a) const {
    if constexpr (std::is_floating_point_v<acc_t>) {
      if (mean) {
        a = count == 0 ? std::numeric_limits<acc_t>::quiet_NaN()
                       : a / static_cast<acc_t>(count);
      }
    }
    out[offset] = static_cast<out_t>(a);
  }
};

// The widest vector registers of the capability this file is compiled for.
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif

// Note [Float max at memory speed]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// MinMaxOps::step's "NaN wins" test does not vectorize (GCC 12 leaves it
// scalar, in lanes or not): amax of 16M floats took 36-40 ms where PyTorch
// takes 6 (2-vCPU Intel Xeon AVX-512, same run). best_lane_without_nan
// keeps, in vectors of the capability's width (GCC's vector extension), the
// best lane by compare-and-blend and whether any element was NaN by an or of
// compares; a run with a NaN is folded again by step(), which keeps the NaN
// itself, as before.
//
// Note [Half max in integer keys]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Half and BFloat16 took step()'s scalar path too (each element converted
// to float, then the NaN test). Their bit patterns order as the numbers do
// once a negative one's 15 magnitude bits are flipped: as signed 16-bit
// integers, -inf < ... < -0 < +0 < ... < +inf. So they run the same loop on
// those keys in integer vectors (twice float's lanes, no conversion), with
// NaNs, whose magnitude bits exceed infinity's, found by an integer compare.
// Between -0 and +0 the keys pick +0 for the largest and -0 for the smallest
// (IEEE 754-2019's maximum/minimum), where step() kept whichever came first;
// the runs of a reduction split among threads are still merged by merge().

// The largest (kMax) or smallest of `start` and the n lanes at p, compared as
// key(lane) (an involution, applied to vectors and to single lanes); false,
// with *out unset, when is_nan(lane) holds for one of them.
template <typename L, bool kMax, typename Key, typename IsNan>
bool best_lane_without_nan(L start, const L* __restrict p, int64_t n, Key key, IsNan is_nan,
                           L* out) {
  typedef L vec __attribute__((vector_size(kVectorBytes)));
  constexpr int kLanes = kVectorBytes / sizeof(L);
  constexpr int kVecs = 4;  // independent chains, as SumOps::block's lanes
  const auto best = [](auto x, auto y) { return kMax ? (x < y ? y : x) : (y < x ? y : x); };
  const L start_key = key(start);
  vec m[kVecs];
  for (vec& v : m) v = vec{} + start_key;
  decltype(is_nan(vec{})) nan = {};
  int64_t i = 0;
  for (; i + kVecs * kLanes <= n; i += kVecs * kLanes) {
    prefetch_ahead(p + i, kVecs * kVectorBytes);  // See Note [Sum prefetch].
    for (int j = 0; j < kVecs; ++j) {
      vec v;
      std::memcpy(&v, p + i + j * kLanes, sizeof v);
      nan |= is_nan(v);
      m[j] = best(m[j], key(v));
    }
  }
  for (int k = 0; k < kLanes; ++k) {
    if (nan[k] != 0) return false;
  }
  L r = start_key;
  for (const vec& v : m) {
    for (int k = 0; k < kLanes; ++k) r = best(r, v[k]);
  }
  for (; i < n; ++i) {
    L x;
    std::memcpy(&x, p + i, sizeof x);
    if (is_nan(x)) return false;
    r = best(r, static_cast<L>(key(x)));
  }
  *out = static_cast<L>(key(r));
  return true;
}

// The largest (kMax) or smallest of `a` and the n numbers at p (float or
// double: their own lanes; Half or BFloat16: their keys), false when one is
// NaN. Half and BFloat16 return a float; `a` is one of their values or an
// infinity, so it converts back exactly.
template <typename T, bool kMax, typename A>
bool best_without_nan(A a, const T* __restrict p, int64_t n, A* out) {
  if constexpr (std::is_floating_point_v<T>) {
    const auto same = [](auto x) { return x; };
    const auto is_nan = [](auto x) { return x != x; };
    return best_lane_without_nan<T, kMax>(a, p, n, same, is_nan, out);
  } else {
    static_assert(is_reduced_float_v<T>, "Half or BFloat16");
    constexpr int16_t kInfBits = std::is_same_v<T, c10::Half> ? 0x7c00 : 0x7f80;
    const auto key = [](auto bits) { return bits ^ ((bits >> 15) & 0x7fff); };
    const auto is_nan = [](auto bits) { return (bits & 0x7fff) > kInfBits; };
    int16_t start, best;
    const T a16 = static_cast<T>(a);
    std::memcpy(&start, &a16, sizeof start);
    if (!best_lane_without_nan<int16_t, kMax>(start, reinterpret_cast<const int16_t*>(p), n,
                                              key, is_nan, &best)) {
      return false;
    }
    *out = static_cast<float>(T(static_cast<uint16_t>(best), T::from_bits()));
    return true;
  }
}

// The largest (kMax) or smallest element; NaN wins over every number, as in
// PyTorch. With kIndex, also its position, the first one among equals (and
// the first NaN).
template <typename T, bool kMax, bool kIndex>
struct MinMaxOps {
  using in_t = T;
  using val_t = opmath_t<T>;
  struct Indexed {
    val_t value;
    int64_t index;  // -1: nothing folded yet
  };
  using acc_t = std::conditional_t<kIndex, Indexed, val_t>;

  T* values;         // may be null with kIndex (argmax, argmin)
  int64_t* indices;  // kIndex only

  static bool better(val_t x, val_t a) { return kMax ? a < x : x < a; }
  static val_t worst() { return kMax ? lowest_value<val_t>() : highest_value<val_t>(); }

  acc_t identity() const {
    if constexpr (kIndex) {
      return {worst(), -1};
    } else {
      return worst();
    }
  }
  acc_t step(acc_t a, in_t x, int64_t index) const {
    const val_t v = static_cast<val_t>(x);
    if constexpr (kIndex) {
      if (a.index < 0 || (!is_nan(a.value) && (is_nan(v) || better(v, a.value)))) {
        return {v, index};
      }
      return a;
    } else {
      return (better(v, a) || is_nan(v)) ? v : a;
    }
  }
  acc_t merge(acc_t a, acc_t b) const {  // a holds the earlier positions
    if constexpr (kIndex) {
      if (b.index < 0 || a.index < 0) return b.index < 0 ? a : b;
      return step(a, static_cast<in_t>(b.value), b.index);
    } else {
      return (better(b, a) || is_nan(b)) ? b : a;
    }
  }
  acc_t run(acc_t a, const in_t* p, int64_t n, int64_t stride, int64_t index) const {
    if constexpr (!kIndex) {
      if (stride == 1) {
        if constexpr (std::is_floating_point_v<in_t> || is_reduced_float_v<in_t>) {
          if (is_nan(a)) return a;
          val_t r;
          if (best_without_nan<in_t, kMax>(a, p, n, &r)) return r;
        }
        // Independent lanes, as in SumOps::run; any order gives the same value.
        constexpr int kLanes = 8;
        acc_t m[kLanes];
        for (int k = 0; k < kLanes; ++k) m[k] = a;
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes) {
          for (int k = 0; k < kLanes; ++k) m[k] = step(m[k], p[i + k], 0);
        }
        for (; i < n; ++i) m[0] = step(m[0], p[i], 0);
        for (int k = 1; k < kLanes; ++k) m[0] = merge(m[0], m[k]);
        return m[0];
      }
    }
    for (int64_t i = 0; i < n; ++i) a = step(a, p[i * stride], index + i);
    return a;
  }
  void write(int64_t offset, acc_t a) const {
    if constexpr (kIndex) {
      if (values != nullptr) values[offset] = static_cast<T>(a.value);
      indices[offset] = a.index;
    } else {
      values[offset] = static_cast<T>(a);
    }
  }
};

// ---- sum and mean --------------------------------------------------------------------------

at::Tensor sum_or_mean(const char* op, bool mean, const at::Tensor& self,
                       c10::OptionalIntArrayRef dims, bool keepdim,
                       std::optional<c10::ScalarType> dtype) {
  reduce_check_input(self, op);
  const c10::ScalarType in_type = self.scalar_type();
  const bool integral = c10::isIntegralType(in_type, /*includeBool=*/true);
  if (mean) {
    TORCH_CHECK(!dtype.has_value() || c10::isFloatingType(*dtype), op,
                "(): could not infer output dtype. Optional dtype must be either "
                "a floating point or complex dtype. Got: ", *dtype,
                ". Pass a floating dtype such as at::kFloat.");
    TORCH_CHECK(dtype.has_value() || c10::isFloatingType(in_type), op,
                "(): could not infer output dtype. Input dtype must be either a "
                "floating point or complex dtype. Got: ", in_type,
                ". Pass dtype=at::kFloat, or convert the input to a floating dtype.");
  }
  const c10::ScalarType out_type =
      dtype.value_or(integral ? c10::ScalarType::Long : in_type);
  const std::vector<bool> mask = reduce_dim_mask(self, dims, op);
  at::Tensor out = empty_cpu(reduce_shape(self, mask, keepdim), out_type, op);
  // Integral inputs are read as they are into an int64 sum; anything else
  // is converted first.
  const bool widen = out_type == c10::ScalarType::Long && integral;
  const at::Tensor src = widen ? self : reduce_as_dtype(self, out_type, op);
  const ReduceGeometry g(src.sizes(), src.strides(), mask, /*coalesce_reduced=*/true);
  EMBER_DISPATCH_ALL_TYPES(src.scalar_type(), op, [&] {
    const auto* in = static_cast<const scalar_t*>(src.data_ptr());
    if constexpr (std::is_integral_v<scalar_t> && !std::is_same_v<scalar_t, int64_t>) {
      if (widen) {
        reduce_kernel(g, in, SumOps<scalar_t, int64_t>{out.data_ptr<int64_t>(), false, 0});
        return;
      }
    }
    reduce_kernel(g, in, SumOps<scalar_t, scalar_t>{static_cast<scalar_t*>(out.data_ptr()),
                                                    mean, g.num_reduced});
  });
  return out;
}

// ---- max and min -----------------------------------------------------------------------------

template <bool kMax>
at::Tensor amax_or_amin(const char* op, const at::Tensor& self, c10::IntArrayRef dims,
                        bool keepdim) {
  reduce_check_input(self, op);
  TORCH_CHECK(!dims.empty() || self.numel() != 0, op, "(): Expected reduction dim "
              "to be specified for input.numel() == 0. Specify the reduction dim "
              "with the 'dim' argument.");
  const std::vector<bool> mask = reduce_dim_mask(self, dims, op);
  reduce_check_nonempty(self, mask, op);
  at::Tensor out = empty_cpu(reduce_shape(self, mask, keepdim), self.scalar_type(), op);
  const ReduceGeometry g(self.sizes(), self.strides(), mask, /*coalesce_reduced=*/true);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    MinMaxOps<scalar_t, kMax, false> ops{static_cast<scalar_t*>(out.data_ptr()), nullptr};
    reduce_kernel(g, static_cast<const scalar_t*>(self.data_ptr()), ops);
  });
  return out;
}

// Values (unless `values` is null) and int64 positions along one dim.
template <bool kMax>
void indexed_reduce(const char* op, const at::Tensor& self, int64_t dim, bool keepdim,
                    at::Tensor* values, at::Tensor* indices) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(wrapped)] = true;
  reduce_check_nonempty(self, mask, op);
  const std::vector<int64_t> shape = reduce_shape(self, mask, keepdim);
  if (values != nullptr) *values = empty_cpu(shape, self.scalar_type(), op);
  *indices = empty_cpu(shape, c10::ScalarType::Long, op);
  const ReduceGeometry g(self.sizes(), self.strides(), mask, /*coalesce_reduced=*/false);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    MinMaxOps<scalar_t, kMax, true> ops{
        values != nullptr ? static_cast<scalar_t*>(values->data_ptr()) : nullptr,
        indices->data_ptr<int64_t>()};
    reduce_kernel(g, static_cast<const scalar_t*>(self.data_ptr()), ops);
  });
}

template <bool kMax>
std::tuple<at::Tensor, at::Tensor> max_or_min_dim(const char* op, const at::Tensor& self,
                                                  int64_t dim, bool keepdim) {
  reduce_check_input(self, op);
  at::Tensor values;
  at::Tensor indices;
  indexed_reduce<kMax>(op, self, dim, keepdim, &values, &indices);
  return {values, indices};
}

template <bool kMax>
at::Tensor argmax_or_argmin(const char* op, const at::Tensor& self,
                            std::optional<int64_t> dim, bool keepdim) {
  reduce_check_input(self, op);
  at::Tensor indices;
  if (dim.has_value()) {
    indexed_reduce<kMax>(op, self, *dim, keepdim, nullptr, &indices);
    return indices;
  }
  TORCH_CHECK(self.numel() != 0, op, "(): Expected reduction dim to be specified "
              "for input.numel() == 0. Pass a dim, or a tensor with elements.");
  // Positions in the flattened tensor: reduce a contiguous 1-d view.
  at::Tensor src = self;
  if (!self.is_contiguous()) {
    src = empty_cpu(self.sizes(), self.scalar_type(), op);
    copy_into(src, self);
  }
  const int64_t n = self.numel();
  const int64_t one = 1;
  const ReduceGeometry g(c10::IntArrayRef(&n, 1), c10::IntArrayRef(&one, 1), {true},
                         /*coalesce_reduced=*/false);
  const std::vector<int64_t> shape(keepdim ? static_cast<size_t>(self.dim()) : 0, 1);
  indices = empty_cpu(shape, c10::ScalarType::Long, op);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    MinMaxOps<scalar_t, kMax, true> ops{nullptr, indices.data_ptr<int64_t>()};
    reduce_kernel(g, static_cast<const scalar_t*>(src.data_ptr()), ops);
  });
  return indices;
}

}  // namespace

// Its blocks are exponentials just computed into a small buffer: no prefetch.
double sum_float_block(const float* p, int64_t n) {
  return SumOps<float, float>::block</*kPrefetch=*/false>(p, n);
}

at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  return sum_or_mean("sum", false, self, std::nullopt, false, dtype);
}

at::Tensor sum_dim(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                   bool keepdim, std::optional<c10::ScalarType> dtype) {
  return sum_or_mean("sum", false, self, dim, keepdim, dtype);
}

at::Tensor mean(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  return sum_or_mean("mean", true, self, std::nullopt, false, dtype);
}

at::Tensor mean_dim(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                    bool keepdim, std::optional<c10::ScalarType> dtype) {
  return sum_or_mean("mean", true, self, dim, keepdim, dtype);
}

at::Tensor amax(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim) {
  return amax_or_amin<true>("amax", self, dim, keepdim);
}

at::Tensor amin(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim) {
  return amax_or_amin<false>("amin", self, dim, keepdim);
}

std::tuple<at::Tensor, at::Tensor> max_dim(const at::Tensor& self, int64_t dim,
                                           bool keepdim) {
  return max_or_min_dim<true>("max", self, dim, keepdim);
}

std::tuple<at::Tensor, at::Tensor> min_dim(const at::Tensor& self, int64_t dim,
                                           bool keepdim) {
  return max_or_min_dim<false>("min", self, dim, keepdim);
}

at::Tensor argmax(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_or_argmin<true>("argmax", self, dim, keepdim);
}

at::Tensor argmin(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_or_argmin<false>("argmin", self, dim, keepdim);
}

at::Tensor& sum_out(const at::Tensor& self, c10::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  // Without `dtype`, the sum is computed in out's dtype (as PyTorch).
  TORCH_CHECK(out.defined(), "sum: the out tensor is undefined; pass a defined tensor.");
  return reduce_write_out(
      out, sum_or_mean("sum", false, self, dim, keepdim, dtype.value_or(out.scalar_type())),
      "sum");
}

at::Tensor& mean_out(const at::Tensor& self, c10::OptionalIntArrayRef dim, bool keepdim,
                     std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  TORCH_CHECK(out.defined(), "mean: the out tensor is undefined; pass a defined tensor.");
  return reduce_write_out(
      out, sum_or_mean("mean", true, self, dim, keepdim, dtype.value_or(out.scalar_type())),
      "mean");
}

at::Tensor& amax_out(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim,
                     at::Tensor& out) {
  return reduce_write_out(out, amax(self, dim, keepdim), "amax");
}

at::Tensor& amin_out(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim,
                     at::Tensor& out) {
  return reduce_write_out(out, amin(self, dim, keepdim), "amin");
}

at::Tensor& argmax_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim,
                       at::Tensor& out) {
  return reduce_write_out(out, argmax(self, dim, keepdim), "argmax");
}

at::Tensor& argmin_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim,
                       at::Tensor& out) {
  return reduce_write_out(out, argmin(self, dim, keepdim), "argmin");
}

at::Tensor max_all(const at::Tensor& self) {
  return amax_or_amin<true>("max", self, {}, false);
}

at::Tensor min_all(const at::Tensor& self) {
  return amax_or_amin<false>("min", self, {}, false);
}

at::Tensor& max_all_out(const at::Tensor& self, at::Tensor& out) {
  return reduce_write_out(out, max_all(self), "max");
}

at::Tensor& min_all_out(const at::Tensor& self, at::Tensor& out) {
  return reduce_write_out(out, min_all(self), "min");
}

}  // namespace ember::cpu
