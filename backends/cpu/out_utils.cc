// The helpers of the out= overloads that copy (Note [out= overloads that
// copy] in out_utils.h).
#include "backends/cpu/out_utils.h"

#include <cstddef>

#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

void check_out_defined(const at::Tensor& out, const char* op, const char* name) {
  TORCH_CHECK(out.defined(), op, ": the out= tensor `", name, "` is undefined; pass a "
              "defined tensor (of any shape: it is resized), or call the functional ", op,
              ".");
}

void check_out_exact_dtype(const at::Tensor& out, c10::ScalarType dtype, const char* op,
                           const char* name) {
  check_out_defined(out, op, name);
  TORCH_CHECK(out.scalar_type() == dtype, op, ": Expected out tensor `", name,
              "` to have dtype ", dtype, ", but got ", out.scalar_type(), " instead. "
              "Pass an out= tensor of dtype ", dtype, ".");
}

at::Tensor& copy_to_out(at::Tensor& out, const at::Tensor& result, const char* op,
                        const char* name) {
  check_out_defined(out, op, name);
  resize_output(out, result.sizes(), op);
  copy_into(out, result);
  return out;
}

at::Tensor& write_exact(at::Tensor& out, const at::Tensor& result, const char* op,
                        const char* name) {
  check_out_exact_dtype(out, result.scalar_type(), op, name);
  return copy_to_out(out, result, op, name);
}

at::Tensor& write_castable(at::Tensor& out, const at::Tensor& result, const char* op,
                           const char* name) {
  check_out_defined(out, op, name);
  TORCH_CHECK(at::can_cast(result.scalar_type(), out.scalar_type()), op, ": result type ",
              result.scalar_type(), " can't be cast to the desired output type ",
              out.scalar_type(), ". Pass a `", name, "` of dtype ", result.scalar_type(),
              ", or convert the inputs first.");
  return copy_to_out(out, result, op, name);
}

void check_mask_all_true(const std::vector<bool>& output_mask, const char* op) {
  for (size_t i = 0; i < output_mask.size(); ++i) {
    TORCH_CHECK(output_mask[i], op, ": the out= form writes every result, but "
                "output_mask[", i, "] is false, so out", i, " would not be computed "
                "(PyTorch's out= form fails on it too). Pass an output_mask of all true, "
                "or call the functional ", op, ", which leaves that result undefined.");
  }
}

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> copy_to_outs(
    at::Tensor& out0, at::Tensor& out1, at::Tensor& out2,
    const std::tuple<at::Tensor, at::Tensor, at::Tensor>& result, const char* op) {
  check_out_defined(out0, op, "out0");
  check_out_defined(out1, op, "out1");
  check_out_defined(out2, op, "out2");
  const at::Tensor* results[] = {&std::get<0>(result), &std::get<1>(result),
                                 &std::get<2>(result)};
  for (size_t i = 0; i < 3; ++i) {
    TORCH_CHECK(results[i]->defined(), op, ": result ", i, " was not computed, so out", i,
                " cannot be written. Call the functional ", op, " instead.");
  }
  copy_to_out(out0, *results[0], op, "out0");
  copy_to_out(out1, *results[1], op, "out1");
  copy_to_out(out2, *results[2], op, "out2");
  return {out0, out1, out2};
}

}  // namespace ember::cpu
