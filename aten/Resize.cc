#include "aten/Resize.h"

#include <algorithm>
#include <cstdint>

#include "aten/Functions.h"
#include "c10/core/StridedExtent.h"
#include "c10/core/impl/LocalDispatchKeySet.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {

Tensor& resize_storage_and_shape(Tensor& self, c10::IntArrayRef size,
                                 std::optional<c10::MemoryFormat> memory_format,
                                 c10::Allocator* fallback,
                                 const std::function<void(void*, const void*, size_t)>& copy_bytes) {
  c10::check_sizes_non_negative(size, "resize_");
  const c10::MemoryFormat format = memory_format.value_or(c10::MemoryFormat::Contiguous);
  TORCH_CHECK(format != c10::MemoryFormat::Preserve, "resize_: memory format "
              "Preserve is not supported (there is no layout to keep when the "
              "shape changes). Pass Contiguous or ChannelsLast.");
  TORCH_CHECK(format != c10::MemoryFormat::ChannelsLast || size.size() == 4,
              "resize_: memory format ChannelsLast needs 4 sizes (N, C, H, W), "
              "but got ", size, ". Pass 4 sizes or use Contiguous.");
  if (self.sizes() == size && !memory_format.has_value()) return self;
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  const size_t needed =
      c10::checked_contiguous_nbytes(size, self.itemsize(), "resize_") +
      static_cast<size_t>(self.storage_offset()) * self.itemsize();
  const c10::Storage& storage = impl->storage();
  if (storage.nbytes() < needed) {
    TORCH_CHECK(storage.resizable(), "resize_: the tensor needs ", needed,
                " bytes to be resized to ", size, " but its storage holds ",
                storage.nbytes(), " and is not resizable (it wraps memory "
                "Ember does not own). Resize a tensor Ember allocated.");
    c10::Allocator* allocator = storage.allocator() != nullptr ? storage.allocator() : fallback;
    c10::DataPtr fresh = allocator->allocate(needed);
    if (storage.nbytes() > 0 && storage.data() != nullptr) {
      copy_bytes(fresh.get(), storage.data(), storage.nbytes());
    }
    storage.set_data_ptr_noswap(std::move(fresh));
    storage.set_nbytes(needed);
  }
  if (format == c10::MemoryFormat::ChannelsLast) {
    const int64_t c = std::max<int64_t>(size[1], 1);
    const int64_t w = std::max<int64_t>(size[3], 1);
    const int64_t h = std::max<int64_t>(size[2], 1);
    const int64_t strides[4] = {h * w * c, 1, w * c, c};
    impl->set_sizes_and_strides(size, strides, self.storage_offset());
  } else {
    impl->set_sizes_contiguous(size);
  }
  return self;
}

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
