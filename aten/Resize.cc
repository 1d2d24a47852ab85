#include "aten/Resize.h"

#include <cstdint>

#include "aten/Functions.h"
#include "c10/core/impl/LocalDispatchKeySet.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {

void resize_out(const Tensor& out, c10::IntArrayRef shape, const char* op) {
  if (out.sizes() == shape) return;
  for (size_t d = 0; d < shape.size(); ++d) {
    TORCH_CHECK(shape[d] >= 0, op, ": sizes must be non-negative, but got ", shape,
                " (size ", shape[d], " at dimension ", d, "). Pass sizes >= 0.");
  }
  // The storage check names the op; the bytes are computed as the backend's
  // resize_ computes them (contiguous, after the storage offset).
  uint64_t bytes = out.itemsize();
  for (int64_t s : shape) {
    TORCH_CHECK(!__builtin_mul_overflow(bytes, static_cast<uint64_t>(s), &bytes) &&
                    bytes <= static_cast<uint64_t>(INT64_MAX),
                op, ": a tensor of sizes ", shape, " and dtype ", out.scalar_type(),
                " needs more bytes than a 64-bit size holds. Use smaller sizes.");
  }
  const uint64_t needed =
      bytes + static_cast<uint64_t>(out.storage_offset()) * out.itemsize();
  const c10::Storage& storage = out.unsafeGetTensorImpl()->storage();
  TORCH_CHECK(storage.nbytes() >= needed || storage.resizable(), op,
              ": the output needs ", needed, " bytes to be resized to ", shape,
              " but its storage holds ", storage.nbytes(), " and is not resizable "
              "(it wraps memory Ember does not own). Pass an output of shape ",
              shape, ".");
  // Below autograd: the autograd layer has already judged the out= call.
  at::AutoDispatchBelowAutograd below_autograd;
  at::_ops::resize_::call(const_cast<Tensor&>(out), shape, std::nullopt);
}

bool resize_output(const Tensor& out, c10::IntArrayRef shape, const char* op) {
  if (out.sizes() == shape) return false;
  if (out.numel() != 0) {
    for (int64_t s : shape) {
      // A negative size is refused by resize_out, before any warning.
      if (s < 0) resize_out(out, shape, op);
    }
    TORCH_WARN(op, ": an output with one or more elements was resized since "
               "it had shape ", out.sizes(), ", which does not match the "
               "required output shape ", shape, ". This is deprecated, as in "
               "PyTorch; to reuse an output, pass one of the right shape or "
               "resize it to zero elements first.");
  }
  resize_out(out, shape, op);
  return true;
}

}  // namespace native
}  // namespace at
