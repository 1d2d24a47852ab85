// The CPU plugin's fused dropout and its backward. Element i (row-major) is
// kept when stream word i, read as u = w / 2^32, is below 1 - p.
#include <cmath>
#include <tuple>

#include "aten/Functions.h"  // Tensor::contiguous
#include "aten/RandomChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/random.h"
#include "backends/cpu/random_engine.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p,
                                                  std::optional<bool> train) {
  at::native::check_dropout(input, p);
  at::Tensor output = empty_cpu(input.sizes(), input.scalar_type(), "native_dropout");
  at::Tensor mask = empty_cpu(input.sizes(), c10::kBool, "native_dropout");
  const int64_t n = input.numel();
  if (!train.value_or(true)) {
    copy_into(output, input);
    if (n > 0) ember::cpu::fill_(mask, true);
    return {output, mask};
  }
  if (n == 0) return {output, mask};
  const at::Tensor x = input.contiguous();
  const double keep_p = 1.0 - p;
  // Guards the division when everything is dropped (p == 1).
  const double scale = keep_p == 0.0 ? 0.0 : 1.0 / keep_p;
  const double threshold = keep_p * 4294967296.0;
  const at::PhiloxCpuState s = random::reserve(std::nullopt, static_cast<uint64_t>(n));
  bool* m = static_cast<bool*>(mask.data_ptr());
  EMBER_DISPATCH_FLOATING_TYPES(input.scalar_type(), "native_dropout", [&] {
    using acc_t = opmath_t<scalar_t>;
    const auto* in = static_cast<const scalar_t*>(x.data_ptr());
    auto* out = static_cast<scalar_t*>(output.data_ptr());
    const acc_t sc = static_cast<acc_t>(scale);
    random::parallel_range(n, [&](int64_t begin, int64_t end) {
      random::for_each_unit<1>(s, begin, end, [&](int64_t i, const uint32_t* w) {
        const bool keep = static_cast<double>(w[0]) < threshold;
        m[i] = keep;
        // As PyTorch's input * mask * scale: a dropped NaN stays NaN.
        out[i] = static_cast<scalar_t>(static_cast<acc_t>(in[i]) *
                                       static_cast<acc_t>(keep) * sc);
      });
    });
  });
  return {output, mask};
}

at::Tensor native_dropout_backward(const at::Tensor& grad_output,
                                   const at::Tensor& mask, double scale) {
  at::native::check_dropout_backward(grad_output, mask);
  at::Tensor out;
  TensorIterator iter(TensorIteratorConfig("native_dropout_backward")
                          .add_output(out)
                          .add_input(grad_output)
                          .add_input(mask)
                          .promote_inputs_to_common_dtype(false));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), "native_dropout_backward", [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t sc = static_cast<acc_t>(scale);
    iter.for_each([sc](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const auto g = *reinterpret_cast<const scalar_t*>(data[1] + i * strides[1]);
        const bool k = *reinterpret_cast<const bool*>(data[2] + i * strides[2]);
        *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) =
            static_cast<scalar_t>(static_cast<acc_t>(g) * static_cast<acc_t>(k) * sc);
      }
    });
  });
  return iter.output();
}

}  // namespace ember::cpu
