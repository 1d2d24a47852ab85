// backends/cpu/pointwise_loops.h — the 1-d loops behind the CPU plugin's
// elementwise kernels, and the small helpers those kernels share.
//
//   TensorIterator iter(TensorIteratorConfig("mul").add_output(out)
//                           .add_input(a).add_input(b));
//   binary_loop<float, float>(iter, [](float x, float y) { return x * y; });
//
// The loops hand the element function values of the operands' dtypes and
// store what it returns; they pick a plain indexed loop that GCC vectorizes
// when a run is contiguous (See Note [Vectorizable loops]). Internal to the
// CPU plugin.
#pragma once

#include <emmintrin.h>
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "aten/PointwiseChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/parallel.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/core/Scalar.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

// Note [Vectorizable loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// When a run's strides equal the element sizes, the loops below are plain
// indexed loops over __restrict pointers, which GCC vectorizes at -O3 (and
// at -O2 from GCC 12). __restrict promises that no other pointer writes what
// one reads, so an in-place run (output == input, which the iterator allows
// only for exactly the same elements) gets its own loop that reads and
// writes through the one output pointer. Broadcast scalars (stride 0) are
// read once and captured. The contiguous loops are flattened (every call
// in them inlined): an element function left out of line, which GCC's
// heuristics do for the larger ones (sigmoid, gelu), is a call per element
// that stops vectorization.

template <typename out_t, typename in_t, typename F>
[[gnu::flatten]] inline void contiguous_unary(char* o, const char* a, int64_t n, const F& f) {
  if constexpr (std::is_same_v<out_t, in_t>) {
    if (o == a) {
      out_t* __restrict po = reinterpret_cast<out_t*>(o);
      for (int64_t i = 0; i < n; ++i) po[i] = f(po[i]);
      return;
    }
  }
  out_t* __restrict po = reinterpret_cast<out_t*>(o);
  const in_t* __restrict pa = reinterpret_cast<const in_t*>(a);
  for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i]);
}

template <typename out_t, typename in_t, typename F>
[[gnu::flatten]] inline void contiguous_binary(char* o, const char* a, const char* b, int64_t n,
                              const F& f) {
  if constexpr (std::is_same_v<out_t, in_t>) {
    if (o == a || o == b) {
      out_t* __restrict po = reinterpret_cast<out_t*>(o);
      if (a == b) {
        for (int64_t i = 0; i < n; ++i) po[i] = f(po[i], po[i]);
      } else if (o == a) {
        const in_t* __restrict pb = reinterpret_cast<const in_t*>(b);
        for (int64_t i = 0; i < n; ++i) po[i] = f(po[i], pb[i]);
      } else {
        const in_t* __restrict pa = reinterpret_cast<const in_t*>(a);
        for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], po[i]);
      }
      return;
    }
  }
  out_t* __restrict po = reinterpret_cast<out_t*>(o);
  const in_t* __restrict pa = reinterpret_cast<const in_t*>(a);
  const in_t* __restrict pb = reinterpret_cast<const in_t*>(b);
  for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
}

// Note [Streaming stores]
// ~~~~~~~~~~~~~~~~~~~~~~~
// An output larger than the last-level cache cannot stay in it, yet an
// ordinary store first reads each line of it from memory (to own it) and
// later writes it back: 16 bytes of traffic per 8 written. Non-temporal
// stores write whole lines straight to memory. So when an elementwise
// kernel's output is at least streaming_store_bytes() (the LLC's size), a
// contiguous run that does not write over one of its inputs is computed in
// blocks of kStreamBlockBytes into a buffer on the stack (L1) by the same
// vectorized loop, and each block is copied out with the widest
// non-temporal store the capability build has (SSE2, AVX or AVX-512);
// the run's unaligned head and its tail are written directly. `add_out` of
// 16M floats on Zen 4, 1 thread: 5.3-5.4 ms -> 4.3-4.4 ms (PyTorch 1.13:
// 4.7-5.0 ms in the same runs).
// The run ends with a store fence, so the kernel's ordinary synchronization
// (the end of the OpenMP region) orders those stores too. Smaller outputs
// keep ordinary stores: the next op usually reads them from the cache.
constexpr int64_t kStreamBlockBytes = 2048;
constexpr uintptr_t kStreamAlign = 64;

// Copies `bytes` (a multiple of kStreamAlign) from `src` to `dst` (both
// aligned to kStreamAlign) with non-temporal stores.
inline void stream_copy(char* dst, const char* src, int64_t bytes) {
#if defined(__AVX512F__)
  for (int64_t i = 0; i < bytes; i += 64) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i),
                        _mm512_load_si512(reinterpret_cast<const void*>(src + i)));
  }
#elif defined(__AVX__)
  for (int64_t i = 0; i < bytes; i += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_load_si256(reinterpret_cast<const __m256i*>(src + i)));
  }
#else
  for (int64_t i = 0; i < bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_load_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
#endif
}

// Whether `iter`'s output (of out_t elements) is large enough to stream.
template <typename out_t>
bool streams_output(const TensorIterator& iter) {
  return iter.numel() * static_cast<int64_t>(sizeof(out_t)) >= streaming_store_bytes();
}

// Writes n out_t elements at `o` through `compute(dst, offset, count)`,
// which must store elements [offset, offset + count) of the run at dst[0..count):
// see Note [Streaming stores].
template <typename out_t, typename Compute>
inline void streamed_run(char* o, int64_t n, const Compute& compute) {
  constexpr int64_t kBlock = kStreamBlockBytes / static_cast<int64_t>(sizeof(out_t));
  out_t* po = reinterpret_cast<out_t*>(o);
  const uintptr_t misalign = reinterpret_cast<uintptr_t>(o) % kStreamAlign;
  const uintptr_t head_bytes = misalign == 0 ? 0 : kStreamAlign - misalign;
  if (head_bytes % sizeof(out_t) != 0) {  // elements not aligned to their size
    compute(po, 0, n);
    return;
  }
  const int64_t head = std::min(n, static_cast<int64_t>(head_bytes / sizeof(out_t)));
  compute(po, 0, head);
  alignas(kStreamAlign) unsigned char buffer[kStreamBlockBytes];
  out_t* block = reinterpret_cast<out_t*>(buffer);
  int64_t i = head;
  for (; i + kBlock <= n; i += kBlock) {
    compute(block, i, kBlock);
    stream_copy(o + i * static_cast<int64_t>(sizeof(out_t)),
                reinterpret_cast<const char*>(buffer), kStreamBlockBytes);
  }
  compute(po + i, i, n - i);
  _mm_sfence();
}

// One contiguous run of a one-input loop (a unary op, or a binary one with
// a broadcast scalar captured in g), streamed when `stream`.
template <typename out_t, typename in_t, typename G>
inline void contiguous_unary_run(char* o, const char* a, int64_t n, const G& g, bool stream) {
  if (!stream) {
    contiguous_unary<out_t, in_t>(o, a, n, g);
    return;
  }
  streamed_run<out_t>(o, n, [a, &g](out_t* dst, int64_t off, int64_t count) {
    contiguous_unary<out_t, in_t>(reinterpret_cast<char*>(dst),
                                  a + off * static_cast<int64_t>(sizeof(in_t)), count, g);
  });
}

// One output of out_t, one input of in_t.
template <typename out_t, typename in_t, typename F>
void unary_loop(TensorIterator& iter, const F& f) {
  const bool stream = streams_output<out_t>(iter);
  iter.for_each([&f, stream](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(out_t) && strides[1] == sizeof(in_t)) {
      // Not streamed in place (output == input).
      contiguous_unary_run<out_t, in_t>(data[0], data[1], n, f, stream && data[0] != data[1]);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<out_t*>(data[0] + i * strides[0]) =
          f(*reinterpret_cast<const in_t*>(data[1] + i * strides[1]));
    }
  });
}

// One output of out_t, two inputs of in_t.
template <typename out_t, typename in_t, typename F>
void binary_loop(TensorIterator& iter, const F& f) {
  const bool stream = streams_output<out_t>(iter);
  iter.for_each([&f, stream](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t kOut = sizeof(out_t);
    constexpr int64_t kIn = sizeof(in_t);
    // Streams unless the output is one of the inputs (in place).
    const bool stream_run = stream && data[0] != data[1] && data[0] != data[2];
    if (strides[0] == kOut && strides[1] == kIn && strides[2] == kIn) {
      if (stream_run) {
        const char* a = data[1];
        const char* b = data[2];
        streamed_run<out_t>(data[0], n, [a, b, &f](out_t* dst, int64_t off, int64_t count) {
          contiguous_binary<out_t, in_t>(reinterpret_cast<char*>(dst), a + off * kIn,
                                         b + off * kIn, count, f);
        });
        return;
      }
      contiguous_binary<out_t, in_t>(data[0], data[1], data[2], n, f);
    } else if (strides[0] == kOut && strides[1] == kIn && strides[2] == 0) {
      const in_t b = *reinterpret_cast<const in_t*>(data[2]);
      contiguous_unary_run<out_t, in_t>(
          data[0], data[1], n, [&f, b](in_t x) { return f(x, b); }, stream_run);
    } else if (strides[0] == kOut && strides[1] == 0 && strides[2] == kIn) {
      const in_t a = *reinterpret_cast<const in_t*>(data[1]);
      contiguous_unary_run<out_t, in_t>(
          data[0], data[2], n, [&f, a](in_t y) { return f(a, y); }, stream_run);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<out_t*>(data[0] + i * strides[0]) =
            f(*reinterpret_cast<const in_t*>(data[1] + i * strides[1]),
              *reinterpret_cast<const in_t*>(data[2] + i * strides[2]));
      }
    }
  });
}

// The output may be one of the inputs (in place), so no __restrict; GCC
// checks for overlap at run time before its vector loop.
template <typename out_t, typename a_t, typename b_t, typename c_t, typename F>
[[gnu::flatten]] inline void contiguous_ternary(char** data, int64_t n, const F& f) {
  out_t* po = reinterpret_cast<out_t*>(data[0]);
  const a_t* pa = reinterpret_cast<const a_t*>(data[1]);
  const b_t* pb = reinterpret_cast<const b_t*>(data[2]);
  const c_t* pc = reinterpret_cast<const c_t*>(data[3]);
  for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i], pc[i]);
}

// One output of out_t, three inputs of types a_t, b_t, c_t. Contiguous runs,
// and a contiguous first input with the other two broadcast scalars (clamp
// with Scalar bounds), get loops GCC can vectorize.
template <typename out_t, typename a_t, typename b_t, typename c_t, typename F>
void ternary_loop(TensorIterator& iter, const F& f) {
  const bool stream = streams_output<out_t>(iter);
  iter.for_each([&f, stream](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(out_t) && strides[1] == sizeof(a_t) &&
        strides[2] == sizeof(b_t) && strides[3] == sizeof(c_t)) {
      if (stream && data[0] != data[1] && data[0] != data[2] && data[0] != data[3]) {
        char* inputs[3] = {data[1], data[2], data[3]};
        streamed_run<out_t>(data[0], n, [&inputs, &f](out_t* dst, int64_t off, int64_t count) {
          char* run[4] = {reinterpret_cast<char*>(dst),
                          inputs[0] + off * static_cast<int64_t>(sizeof(a_t)),
                          inputs[1] + off * static_cast<int64_t>(sizeof(b_t)),
                          inputs[2] + off * static_cast<int64_t>(sizeof(c_t))};
          contiguous_ternary<out_t, a_t, b_t, c_t>(run, count, f);
        });
        return;
      }
      contiguous_ternary<out_t, a_t, b_t, c_t>(data, n, f);
    } else if (strides[0] == sizeof(out_t) && strides[1] == sizeof(a_t) &&
               strides[2] == 0 && strides[3] == 0) {
      const b_t b = *reinterpret_cast<const b_t*>(data[2]);
      const c_t c = *reinterpret_cast<const c_t*>(data[3]);
      contiguous_unary<out_t, a_t>(data[0], data[1], n,
                                   [&f, b, c](a_t x) { return f(x, b, c); });
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<out_t*>(data[0] + i * strides[0]) =
            f(*reinterpret_cast<const a_t*>(data[1] + i * strides[1]),
              *reinterpret_cast<const b_t*>(data[2] + i * strides[2]),
              *reinterpret_cast<const c_t*>(data[3] + i * strides[3]));
      }
    }
  });
}

// ember::cpu::check_out — an out= argument is resized as needed but must
// exist, as in PyTorch.
inline void check_out(const at::Tensor& out, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out tensor is undefined; pass a "
              "defined tensor (of any shape: it is resized), or call the "
              "functional ", op, ".");
}

// ember::cpu::wrap_scalar — `s` as a 0-dim CPU "wrapped number" tensor,
// which type promotion treats as a Python number (See Note [Type
// promotion]). Kernels that take Scalars use it to promote as PyTorch does.
inline at::Tensor wrap_scalar(const c10::Scalar& s, const char* op) {
  at::Tensor t = empty_cpu({}, s.type(), op);
  if (s.isFloatingPoint()) {
    *static_cast<double*>(t.data_ptr()) = s.toDouble();
  } else if (s.isBoolean()) {
    *static_cast<bool*>(t.data_ptr()) = s.toBool();
  } else {
    *static_cast<int64_t*>(t.data_ptr()) = s.toLong();
  }
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

// ember::cpu::ZeroDivisionFlag
//
// Integer division and remainder by zero is an error in PyTorch
// ("ZeroDivisionError"), but a loop must not throw (it may run on OpenMP
// threads): the loop raises the flag and the kernel throws after for_each.
// Relaxed order is enough: the flag is read after the parallel region ends,
// which synchronizes with every thread in it.
class ZeroDivisionFlag {
 public:
  void raise() const { raised_.store(true, std::memory_order_relaxed); }
  void throw_if_raised(const char* op) const {
    if (raised_.load(std::memory_order_relaxed)) at::native::throw_zero_division(op);
  }

 private:
  mutable std::atomic<bool> raised_{false};
};

}  // namespace ember::cpu
