// The checks and the copy of out= kernels that run their functional op
// (Note [out= overloads that copy] in aten/CompositeOut.h).
#include "aten/CompositeOut.h"

#include "aten/Operators.h"
#include "aten/Resize.h"
#include "aten/TypePromotion.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {

void check_out_defined(const Tensor& out, const char* op, const char* name) {
  TORCH_CHECK(out.defined(), op, ": the out= tensor `", name, "` is undefined; pass a "
              "defined tensor (of any shape: it is resized), or call the functional ", op,
              ".");
}

void check_out_dtype(const Tensor& out, const Tensor& result, OutDtype rule, const char* op,
                     const char* name) {
  check_out_dtype(out, result.scalar_type(), rule, op, name);
}

void check_out_dtype(const Tensor& out, c10::ScalarType want, OutDtype rule, const char* op,
                     const char* name) {
  check_out_defined(out, op, name);
  switch (rule) {
    case OutDtype::Any:
      return;
    case OutDtype::Exact:
      TORCH_CHECK(out.scalar_type() == want, op, ": Expected out tensor `", name,
                  "` to have dtype ", want, ", but got ", out.scalar_type(), " instead. "
                  "Pass an out= tensor of dtype ", want, ".");
      return;
    case OutDtype::Castable:
      TORCH_CHECK(at::can_cast(want, out.scalar_type()), op, ": result type ", want,
                  " can't be cast to the desired output type ", out.scalar_type(),
                  ". Pass a `", name, "` of dtype ", want, ", or convert the inputs first.");
      return;
  }
  TORCH_INTERNAL_ASSERT(false, "check_out_dtype: unknown OutDtype ", static_cast<int>(rule));
}

void check_result_defined(const Tensor& result, size_t index, const char* op) {
  TORCH_CHECK(result.defined(), op, ": result ", index, " was not computed, so out", index,
              " cannot be written. Call the functional ", op, " instead.");
}

void check_mask_all_true(const std::vector<bool>& output_mask, const char* op) {
  for (size_t i = 0; i < output_mask.size(); ++i) {
    TORCH_CHECK(output_mask[i], op, ": the out= form writes every result, but "
                "output_mask[", i, "] is false, so out", i, " would not be computed "
                "(PyTorch's out= form fails on it too). Pass an output_mask of all true, "
                "or call the functional ", op, ", which leaves that result undefined.");
  }
}

Tensor& copy_to_out(c10::DispatchKeySet ks, Tensor& out, const Tensor& result,
                    const char* op, const char* name) {
  check_out_defined(out, op, name);
  resize_output(out, result.sizes(), op);
  if (!out.is_same(result)) {
    at::_ops::copy_::redispatch(ks - c10::autograd_dispatch_keyset_with_ADInplaceOrView, out,
                                result, false);
  }
  return out;
}

}  // namespace native
}  // namespace at
