// mm, bmm, addmm and mm.out on the CPU: oneDNN's matmul for float32 (and for
// float16/bfloat16, converted to float32 and back), plain loops for float64
// and the integer dtypes. Inputs are wrapped in place (oneDNN reads any row- or
// column-major strides), never copied, and primitives are cached per shape.
#include "backends/cpu/matmul.h"

#include <atomic>
#include <cstring>
#include <unordered_map>

#include <dnnl.hpp>

#include "aten/Functions.h"
#include "aten/LinalgChecks.h"
#include "backends/cpu/CPUKernels.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/onednn.h"
#include "backends/cpu/parallel.h"
#include "registration/record_function.h"

namespace ember::cpu {

using at::Scalar;
using at::ScalarType;
using at::Tensor;

namespace {

// Products per MatmulPath, for matmul_runs(). Relaxed: tallies that publish
// no other data; a test reads them on the thread that ran the products.
std::atomic<int64_t> g_runs[3];

void count_run(ember::cpu::MatmulPath path) {
  g_runs[static_cast<int>(path)].fetch_add(1, std::memory_order_relaxed);
}

// ---------------------------------------------------------------- checks

void check_mm(const Tensor& a, const Tensor& b, int64_t dim, const char* where) {
  at::native::check_matmul_operands(a, b, dim, where);
}

// oneDNN (and the plain loop) read a matrix whose last two dims are row- or
// column-major with positive strides; anything else (e.g. expanded, stride
// 0) is made contiguous first.
Tensor usable(const Tensor& t) {
  const int64_t r = t.stride(-2), c = t.stride(-1);
  const bool row_major = c == 1 && r >= std::max<int64_t>(t.size(-1), 1);
  const bool col_major = r == 1 && c >= std::max<int64_t>(t.size(-2), 1);
  bool batch_ok = true;
  if (t.dim() == 3) batch_ok = t.stride(0) > 0 || t.size(0) == 1;
  return (row_major || col_major) && batch_ok ? t : t.contiguous();
}

// ---------------------------------------------------------------- oneDNN

struct Key {
  int64_t v[16];
  bool operator==(const Key& o) const { return std::memcmp(v, o.v, sizeof(v)) == 0; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t x : k.v) h = (h ^ static_cast<size_t>(x)) * 1099511628211ull;
    return h;
  }
};

dnnl::memory::desc desc3(int64_t b, int64_t rows, int64_t cols, const Tensor& t) {
  const int64_t bs = t.dim() == 3 ? t.stride(0) : rows * cols;
  return dnnl::memory::desc({b, rows, cols}, dnnl::memory::data_type::f32,
                            {b == 1 ? rows * cols : bs, t.stride(-2), t.stride(-1)});
}

// Note [Large products through sgemm]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// oneDNN 2.6's matmul primitive is the fastest for the small and medium
// products of training steps (it beats dnnl_sgemm by ~15% at 256^3), but
// for large ones its own sgemm, which packs both operands, is faster
// (measured on an AVX-512 Xeon, 1 thread: 1024^3 165 vs 179 GFLOP/s, 2048^3
// 155 vs 188). So a single product of at least kSgemmMinWork multiply-adds,
// with operands that are row- or column-major (what `usable` returns), goes
// to dnnl_sgemm; a bias is written into the output first and added by beta = 1.
constexpr int64_t kSgemmMinWork = int64_t{1} << 29;

bool sgemm_operand(const Tensor& t, char* trans, int64_t* ld) {
  const int64_t r = t.stride(0), c = t.stride(1);
  if (c == 1 && r >= std::max<int64_t>(t.size(1), 1)) {
    *trans = 'N';
    *ld = r;
    return true;
  }
  if (r == 1 && c >= std::max<int64_t>(t.size(0), 1)) {
    *trans = 'T';
    *ld = c;
    return true;
  }
  return false;
}

bool try_sgemm(const Tensor& a, const Tensor& w, const Tensor* bias, float alpha, Tensor& out) {
  if (a.dim() != 2 || w.dim() != 2) return false;
  const int64_t M = a.size(0), K = a.size(1), N = w.size(1);
  if (M * N * K < kSgemmMinWork) return false;
  char ta, tw;
  int64_t lda, ldw;
  if (!sgemm_operand(a, &ta, &lda) || !sgemm_operand(w, &tw, &ldw)) return false;
  float beta = 0.0f;
  if (bias) {
    out.copy_(bias->expand({M, N}));
    beta = 1.0f;
  }
  ember::cpu::num_threads();  // sgemm uses this thread's OpenMP setting
  const dnnl_status_t status =
      dnnl_sgemm(ta, tw, M, N, K, alpha, static_cast<const float*>(a.data_ptr()), lda,
                 static_cast<const float*>(w.data_ptr()), ldw, beta,
                 static_cast<float*>(out.data_ptr()), N);
  TORCH_CHECK(status == dnnl_success, "mm: oneDNN's sgemm failed with status ",
              static_cast<int>(status), " for a ", M, "x", K, " by ", K, "x", N,
              " product. This is a bug in Ember or oneDNN; please report it.");
  count_run(ember::cpu::MatmulPath::kOneDnnSgemm);
  return true;
}

// out[b] = alpha * a[b] @ w[b] (+ bias), float32, via a cached primitive
// (or sgemm: See Note [Large products through sgemm]).
void onednn_matmul(const Tensor& a, const Tensor& w, const Tensor* bias,
                   float alpha, Tensor& out) {
  if (try_sgemm(a, w, bias, alpha, out)) return;
  const int64_t B = a.dim() == 3 ? a.size(0) : 1;
  const int64_t M = a.size(-2), K = a.size(-1), N = w.size(-1);
  Key key{};
  int64_t* k = key.v;
  *k++ = B; *k++ = M; *k++ = K; *k++ = N;
  *k++ = a.dim() == 3 ? a.stride(0) : 0; *k++ = a.stride(-2); *k++ = a.stride(-1);
  *k++ = w.dim() == 3 ? w.stride(0) : 0; *k++ = w.stride(-2); *k++ = w.stride(-1);
  *k++ = bias ? 1 + bias->dim() : 0;
  *k++ = bias && bias->dim() > 0 ? bias->stride(-1) : 0;
  *k++ = bias && bias->dim() > 1 ? bias->stride(-2) : 0;
  int32_t alpha_bits;
  std::memcpy(&alpha_bits, &alpha, sizeof(alpha));
  *k++ = alpha_bits;

  // Creating a primitive costs far more than running a small one: each
  // thread keeps the ones it made (no lock), bounded in number.
  thread_local std::unordered_map<Key, std::pair<dnnl::matmul, dnnl::memory::desc>, KeyHash>
      cache;
  auto it = cache.find(key);
  const dnnl::memory::desc a_md = desc3(B, M, K, a);
  const dnnl::memory::desc w_md = desc3(B, K, N, w);
  const dnnl::memory::desc c_md({B, M, N}, dnnl::memory::data_type::f32,
                                {M * N, N, 1});
  dnnl::memory::desc bias_md;
  if (bias) {
    // bias is [N] (broadcast over rows) or [M, N].
    if (bias->dim() == 1) {
      bias_md = dnnl::memory::desc({1, 1, N}, dnnl::memory::data_type::f32,
                                   {N, N, bias->stride(0)});
    } else {
      bias_md = dnnl::memory::desc({1, M, N}, dnnl::memory::data_type::f32,
                                   {M * N, bias->stride(0), bias->stride(1)});
    }
  }
  if (it == cache.end()) {
    if (cache.size() > 256) cache.clear();
    RECORD_BACKEND_SCOPE("oneDNN::create matmul");
    dnnl::primitive_attr attr;
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    auto desc = bias ? dnnl::matmul::desc(a_md, w_md, bias_md, c_md)
                     : dnnl::matmul::desc(a_md, w_md, c_md);
    dnnl::matmul::primitive_desc pd(desc, attr, ember::cpu::onednn_engine());
    it = cache.emplace(key, std::make_pair(dnnl::matmul(pd), c_md)).first;
  }
  thread_local dnnl::stream stream(ember::cpu::onednn_engine());
  dnnl::memory a_mem(a_md, ember::cpu::onednn_engine(), a.data_ptr());
  dnnl::memory w_mem(w_md, ember::cpu::onednn_engine(), w.data_ptr());
  dnnl::memory c_mem(c_md, ember::cpu::onednn_engine(), out.data_ptr());
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, c_mem}};
  if (bias) {
    args.emplace(DNNL_ARG_BIAS,
                 dnnl::memory(bias_md, ember::cpu::onednn_engine(), bias->data_ptr()));
  }
  ember::cpu::num_threads();  // oneDNN uses this thread's OpenMP setting
  it->second.first.execute(stream, args);
  stream.wait();
  count_run(ember::cpu::MatmulPath::kOneDnnMatmul);
}

// ---------------------------------------------------------------- plain

// The type plain_matmul accumulates in: T, or for integers an unsigned type
// in which overflow wraps (as PyTorch's results do) without being undefined.
template <typename T, bool = std::is_integral_v<T>>
struct MatmulAcc {
  using type = T;
};
template <typename T>
struct MatmulAcc<T, true> {
  using type = ember::cpu::wrap_t<T>;
};

// alpha is converted to T.
template <typename T>
void plain_matmul(const Tensor& a, const Tensor& w, double alpha, Tensor& out) {
  using acc_t = typename MatmulAcc<T>::type;
  const int64_t B = a.dim() == 3 ? a.size(0) : 1;
  const int64_t M = a.size(-2), K = a.size(-1), N = w.size(-1);
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pw = static_cast<const T*>(w.data_ptr());
  T* pc = static_cast<T*>(out.data_ptr());
  const int64_t as0 = a.dim() == 3 ? a.stride(0) : 0, as1 = a.stride(-2), as2 = a.stride(-1);
  const int64_t ws0 = w.dim() == 3 ? w.stride(0) : 0, ws1 = w.stride(-2), ws2 = w.stride(-1);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < M; ++i) {
      T* row = pc + (b * M + i) * N;
      for (int64_t j = 0; j < N; ++j) row[j] = 0;
      for (int64_t kk = 0; kk < K; ++kk) {
        const acc_t x = static_cast<acc_t>(static_cast<acc_t>(pa[b * as0 + i * as1 + kk * as2]) *
                                           static_cast<acc_t>(static_cast<T>(alpha)));
        const T* wr = pw + b * ws0 + kk * ws1;
        for (int64_t j = 0; j < N; ++j) {
          row[j] = static_cast<T>(static_cast<acc_t>(row[j]) +
                                  static_cast<acc_t>(x * static_cast<acc_t>(wr[j * ws2])));
        }
      }
    }
  }
}

// out (contiguous, right shape) = alpha * a @ w (+ bias when float32).
void matmul_into(const Tensor& a_in, const Tensor& w_in, const Tensor* bias,
                 double alpha, Tensor& out) {
  if (out.numel() == 0) return;
  if (a_in.size(-1) == 0) {  // K == 0: a sum of nothing
    out.zero_();
    if (bias) out.add_(*bias);
    return;
  }
  const ScalarType dtype = a_in.scalar_type();
  if (dtype == ScalarType::Half || dtype == ScalarType::BFloat16) {
    // oneDNN 2.6 has no f16 matmul on most CPUs; compute in float32, round
    // once at the end (PyTorch also accumulates these in float).
    auto widen = [](const Tensor& t) {
      Tensor f = at::empty(t.sizes(), t.options().dtype(ScalarType::Float));
      f.copy_(t);
      return f;
    };
    Tensor out32 = at::empty(out.sizes(), out.options().dtype(ScalarType::Float));
    const Tensor bias32 = bias ? widen(*bias) : Tensor();
    matmul_into(widen(a_in), widen(w_in), bias ? &bias32 : nullptr, alpha, out32);
    out.copy_(out32);
    return;
  }
  const Tensor a = usable(a_in);
  const Tensor w = usable(w_in);
  if (dtype == ScalarType::Float) {
    onednn_matmul(a, w, bias, static_cast<float>(alpha), out);
    return;
  }
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(dtype, "mm", [&] {
    if constexpr (!std::is_same_v<scalar_t, c10::Half> &&
                  !std::is_same_v<scalar_t, c10::BFloat16> &&
                  !std::is_same_v<scalar_t, float>) {
      plain_matmul<scalar_t>(a, w, alpha, out);
    }
  });
  count_run(ember::cpu::MatmulPath::kPlainLoop);
  if (bias) out.add_(*bias);
}

}  // namespace

// ---------------------------------------------------------------- kernels

Tensor mm(const Tensor& self, const Tensor& mat2) {
  check_mm(self, mat2, 2, "mm");
  Tensor out = at::empty({self.size(0), mat2.size(1)}, self.options());
  matmul_into(self, mat2, nullptr, 1.0, out);
  return out;
}

Tensor& mm_out(const Tensor& self, const Tensor& mat2, Tensor& out) {
  check_mm(self, mat2, 2, "mm.out");
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "mm.out: out has dtype ",
              out.scalar_type(), " but the inputs are ", self.scalar_type(), ".");
  TORCH_CHECK(out.dim() == 2 && out.size(0) == self.size(0) &&
                  out.size(1) == mat2.size(1) && out.is_contiguous(),
              "mm.out: out must be a contiguous [", self.size(0), ", ",
              mat2.size(1), "] tensor, but has sizes ", out.sizes(), ".");
  matmul_into(self, mat2, nullptr, 1.0, out);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  check_mm(self, mat2, 3, "bmm");
  Tensor out = at::empty({self.size(0), self.size(1), mat2.size(2)}, self.options());
  matmul_into(self, mat2, nullptr, 1.0, out);
  return out;
}

// out = beta * self + alpha * (mat1 @ mat2). With beta == alpha == 1 and a
// bias of shape [N] or [M, N] (linear's case), the bias is fused into
// oneDNN's matmul.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
             const Scalar& beta, const Scalar& alpha) {
  check_mm(mat1, mat2, 2, "addmm");
  const int64_t M = mat1.size(0), N = mat2.size(1);
  TORCH_CHECK(self.scalar_type() == mat1.scalar_type(), "addmm: self has dtype ",
              self.scalar_type(), " but the matrices are ", mat1.scalar_type(), ".");
  // oneDNN applies its output scale after adding the bias, so only
  // alpha == 1 can fuse: scale * (a @ w + bias) != alpha * (a @ w) + bias.
  const bool fusable =
      beta.toDouble() == 1.0 && alpha.toDouble() == 1.0 &&
      ((self.dim() == 1 && self.size(0) == N) ||
       (self.dim() == 2 && self.size(0) == M && self.size(1) == N));
  TORCH_CHECK(fusable || self.dim() <= 2, "addmm: self must broadcast to [", M,
              ", ", N, "], but has sizes ", self.sizes(), ".");
  Tensor out = at::empty({M, N}, mat1.options());
  if (fusable && mat1.scalar_type() == ScalarType::Float && mat1.size(1) > 0) {
    const Tensor bias = self.stride(-1) == 1 ? self : self.contiguous();
    matmul_into(mat1, mat2, &bias, 1.0, out);
    return out;
  }
  matmul_into(mat1, mat2, nullptr, alpha.toDouble(), out);
  if (beta.toDouble() != 0.0) out.add_(self.expand({M, N}), beta);
  return out;
}

int64_t matmul_runs(MatmulPath path) {
  return g_runs[static_cast<int>(path)].load(std::memory_order_relaxed);
}

}  // namespace ember::cpu
