// The CPU plugin's running sum: cumsum (functional, in-place and out=).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "aten/ReduceUtils.h"
#include "aten/WrapDimUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/reductions.h"
#include "backends/cpu/reductions_loops.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// Note [Scan loop order]
// ~~~~~~~~~~~~~~~~~~~~~~
// A scan along dim d is many independent lines. Lines are taken a block of
// up to kReduceBlock neighbours (along the innermost other dim) at a time,
// with their running sums in an array: each step along d reads and writes
// one row of the block, which is contiguous (and vectorizes) when d is not
// the innermost dim, and stays within a few cache lines per line when it
// is. Threads split the blocks.
template <typename in_t, typename out_t>
void scan_sum(const at::Tensor& src, const at::Tensor& out, int64_t d) {
  using acc_t = sum_acc_t<out_t>;
  auto load = [](in_t x) -> acc_t {
    if constexpr (std::is_same_v<acc_t, bool>) {
      return convert<bool>(x);
    } else if constexpr (is_reduced_float_v<out_t>) {
      return static_cast<float>(x);
    } else {
      return static_cast<acc_t>(convert<out_t>(x));
    }
  };
  auto add = [](acc_t a, acc_t b) -> acc_t {
    if constexpr (std::is_same_v<acc_t, bool>) {
      return a || b;
    } else {
      return a + b;
    }
  };
  const size_t ud = static_cast<size_t>(d);
  const int64_t n = src.sizes()[ud];
  const int64_t in_step = src.strides()[ud];
  const int64_t out_step = out.strides()[ud];
  std::vector<ReduceDim> kept;  // outermost first
  for (size_t k = 0; k < static_cast<size_t>(src.dim()); ++k) {
    if (k != ud && src.sizes()[k] != 1) {
      kept.push_back({src.sizes()[k], src.strides()[k], out.strides()[k]});
    }
  }
  if (kept.empty()) kept.push_back({1, 0, 0});
  const ReduceDim row = kept.back();
  const int64_t blocks = (row.size + detail::kReduceBlock - 1) / detail::kReduceBlock;
  const int64_t tasks = src.numel() / n / row.size * blocks;
  const auto* in = static_cast<const in_t*>(src.data_ptr());
  auto* o = static_cast<out_t*>(out.data_ptr());
  parallel_chunks(parallel_threads(src.numel(), tasks), tasks,
                          [&](int64_t, int64_t begin, int64_t end) {
    acc_t buf[detail::kReduceBlock];
    for (int64_t task = begin; task < end; ++task) {
      const DimWalker outer(kept.data(), kept.size() - 1, task / blocks);
      const int64_t j0 = task % blocks * detail::kReduceBlock;
      const int64_t len = std::min(detail::kReduceBlock, row.size - j0);
      const in_t* p = in + outer.in + j0 * row.in_stride;
      out_t* q = o + outer.out + j0 * row.out_stride;
      for (int64_t j = 0; j < len; ++j) buf[j] = acc_t(0);
      if (row.in_stride == 1 && row.out_stride == 1) {
        for (int64_t i = 0; i < n; ++i) {
          const in_t* __restrict pi = p + i * in_step;
          out_t* __restrict qi = q + i * out_step;
          for (int64_t j = 0; j < len; ++j) {
            buf[j] = add(buf[j], load(pi[j]));
            qi[j] = static_cast<out_t>(buf[j]);
          }
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const in_t* pi = p + i * in_step;
          out_t* qi = q + i * out_step;
          for (int64_t j = 0; j < len; ++j) {
            buf[j] = add(buf[j], load(pi[j * row.in_stride]));
            qi[j * row.out_stride] = static_cast<out_t>(buf[j]);
          }
        }
      }
    }
  });
}

at::Tensor cumsum_as(const at::Tensor& self, int64_t dim, c10::ScalarType out_type,
                     const char* op) {
  reduce_check_input(self, op);
  const int64_t d = at::maybe_wrap_dim(dim, self.dim(), op);
  at::Tensor out = empty_cpu(self.sizes(), out_type, op);
  if (self.numel() == 0) return out;
  if (self.dim() == 0) {
    copy_into(out, self);
    return out;
  }
  const bool integral = c10::isIntegralType(self.scalar_type(), /*includeBool=*/true);
  const bool widen = out_type == c10::ScalarType::Long && integral;
  const at::Tensor src = widen ? self : reduce_as_dtype(self, out_type, op);
  EMBER_DISPATCH_ALL_TYPES(src.scalar_type(), op, [&] {
    if constexpr (std::is_integral_v<scalar_t> && !std::is_same_v<scalar_t, int64_t>) {
      if (widen) {
        scan_sum<scalar_t, int64_t>(src, out, d);
        return;
      }
    }
    scan_sum<scalar_t, scalar_t>(src, out, d);
  });
  return out;
}

using at::native::check_scan_dtype_arg;

}  // namespace

at::Tensor cumsum(const at::Tensor& self, int64_t dim,
                  std::optional<c10::ScalarType> dtype) {
  TORCH_CHECK(self.defined(), "cumsum: the input tensor is undefined; pass a defined tensor.");
  return cumsum_as(self, dim, at::native::cumsum_result_type(self, dtype), "cumsum");
}

at::Tensor& cumsum_(at::Tensor& self, int64_t dim, std::optional<c10::ScalarType> dtype) {
  TORCH_CHECK(self.defined(), "cumsum_: the input tensor is undefined; pass a defined tensor.");
  check_scan_dtype_arg(dtype, self, "cumsum_");
  copy_into(self, cumsum_as(self, dim, self.scalar_type(), "cumsum_"));
  return self;
}

at::Tensor& cumsum_out(const at::Tensor& self, int64_t dim,
                       std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  TORCH_CHECK(self.defined(), "cumsum: the input tensor is undefined; pass a defined tensor.");
  TORCH_CHECK(out.defined(), "cumsum: the out tensor is undefined; pass a defined tensor.");
  check_scan_dtype_arg(dtype, out, "cumsum");
  return reduce_write_out(out, cumsum_as(self, dim, out.scalar_type(), "cumsum"), "cumsum");
}

}  // namespace ember::cpu
