#include "backends/cpu/eltwise_onednn.h"

#include <atomic>
#include <cstring>
#include <tuple>
#include <unordered_map>

#include "aten/Functions.h"
#include "backends/cpu/onednn.h"
#include "backends/cpu/parallel.h"
#include "registration/record_function.h"

namespace ember::cpu {
namespace {

// Note [oneDNN eltwise]
// ~~~~~~~~~~~~~~~~~~~~~
// oneDNN's JIT eltwise kernels are 1.3x (silu) to 3x (gelu) faster
// than the plugin's vectorizable loops on float32 (tools/bench:pointwise_bench,
// AVX-512, 1 thread: tanh 2.7 vs 1.1 G elements/s, gelu erf 1.9 vs 0.58).
// Running a primitive has a fixed cost of a few microseconds, so tensors
// below kEltwiseMinNumel stay on the loops, as do strided and broadcast
// inputs, other dtypes, and outputs the TensorIterator must resize or check
// (it gives those their errors). The primitive is a 1-d one over the
// contiguous elements, made once per (algorithm, alpha, beta, length) and
// thread, and runs on this thread's OpenMP setting (at::set_num_threads).
// Results agree with the loops to a few ulps, not bitwise. Every op that
// uses it is checked on NaN and infinities (tests/backends/cpu/
// eltwise_onednn_test.cc): oneDNN 2.6's exp maps NaN to inf on AVX-512 and
// its sigmoid flushes results below 1.2e-38 to zero, so those two stay on
// the loops. Its gelu has PyTorch's precision (absolute, within 4e-7, in the
// far negative tail where the loops' erfc form keeps a relative bound).

struct Key {
  int alg;
  float alpha, beta;
  int64_t numel;
  bool operator==(const Key& o) const {
    return std::tie(alg, numel) == std::tie(o.alg, o.numel) &&
           std::memcmp(&alpha, &o.alpha, sizeof(float)) == 0 &&
           std::memcmp(&beta, &o.beta, sizeof(float)) == 0;
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint32_t a, b;
    std::memcpy(&a, &k.alpha, sizeof(a));
    std::memcpy(&b, &k.beta, sizeof(b));
    return (static_cast<size_t>(k.numel) * 31 + static_cast<size_t>(k.alg)) * 1000003u ^
           (static_cast<size_t>(a) << 16) ^ b;
  }
};

// Primitive runs, for onednn_eltwise_runs(). Relaxed: a tally that publishes
// no other data; a reader orders itself against the runs it counts (a test
// reads it on the thread that ran the ops).
std::atomic<int64_t> g_runs{0};

bool usable_output(const at::Tensor& out, const at::Tensor& self) {
  if (!out.defined() || out.is_same(self)) return true;
  if (out.scalar_type() != c10::kFloat || !out.is_contiguous() || out.sizes() != self.sizes() ||
      !out.device().is_cpu()) {
    return false;
  }
  // Disjoint memory only: a partial overlap is the TensorIterator's to refuse.
  const char* o = static_cast<const char*>(out.data_ptr());
  const char* s = static_cast<const char*>(self.data_ptr());
  const int64_t bytes = self.numel() * static_cast<int64_t>(sizeof(float));
  return o + bytes <= s || s + bytes <= o;
}

}  // namespace

at::Tensor onednn_unary(dnnl::algorithm alg, float alpha, float beta, const at::Tensor& out,
                        const at::Tensor& self) {
  if (!self.defined() || self.scalar_type() != c10::kFloat || !self.is_contiguous() ||
      self.numel() < kEltwiseMinNumel || !usable_output(out, self)) {
    return at::Tensor();
  }
  at::Tensor result = out.defined() ? out : at::empty(self.sizes(), self.options());
  const int64_t n = self.numel();
  thread_local std::unordered_map<Key, dnnl::eltwise_forward, KeyHash> cache;
  const Key key{static_cast<int>(alg), alpha, beta, n};
  auto it = cache.find(key);
  const dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  if (it == cache.end()) {
    if (cache.size() > 64) cache.clear();
    RECORD_BACKEND_SCOPE("oneDNN::create eltwise_forward");
    const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, alg, md, alpha,
                                           beta);
    const dnnl::eltwise_forward::primitive_desc pd(desc, onednn_engine());
    it = cache.emplace(key, dnnl::eltwise_forward(pd)).first;
  }
  thread_local dnnl::stream stream(onednn_engine());
  dnnl::memory src(md, onednn_engine(), self.data_ptr());
  dnnl::memory dst(md, onednn_engine(), result.data_ptr());
  ember::cpu::num_threads();  // oneDNN uses this thread's OpenMP setting
  it->second.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  stream.wait();
  g_runs.fetch_add(1, std::memory_order_relaxed);
  return result;
}

int64_t onednn_eltwise_runs() { return g_runs.load(std::memory_order_relaxed); }

}  // namespace ember::cpu
