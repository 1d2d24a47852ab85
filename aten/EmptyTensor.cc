// at::detail::empty_generic and empty_strided_generic: See aten/EmptyTensor.h.
#include "aten/EmptyTensor.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "c10/core/Storage.h"
#include "c10/core/StorageImpl.h"
#include "c10/core/StridedExtent.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"
#include "registration/plugin_loader.h"

namespace at {
namespace detail {
namespace {

void check_dtype(ScalarType dtype, const char* op) {
  TORCH_CHECK(dtype != ScalarType::Undefined && dtype != ScalarType::NumOptions, op,
              ": expected a dtype such as Float or Long, but got ", dtype,
              ". Pass c10::dtype_or_default(dtype) for a factory's optional dtype.");
}

TensorBase make(IntArrayRef size, IntArrayRef stride, size_t nbytes,
                c10::Allocator* allocator, c10::DispatchKeySet ks, ScalarType dtype,
                const char* op) {
  TORCH_CHECK(allocator != nullptr, op, ": the allocator is null; pass the "
              "device's allocator (e.g. c10::GetAllocator(c10::kPrivateUse1)).");
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), nbytes, allocator, /*resizable=*/true));
  auto impl = c10::make_intrusive<c10::TensorImpl>(std::move(storage), ks, dtype);
  impl->set_sizes_and_strides(size, stride, 0);
  return TensorBase(std::move(impl));
}

}  // namespace

size_t computeStorageNbytesContiguous(IntArrayRef sizes, size_t itemsize) {
  return c10::checked_contiguous_nbytes(sizes, itemsize, "computeStorageNbytesContiguous");
}

size_t computeStorageNbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize,
                            size_t storage_offset) {
  return c10::checked_strided_nbytes(sizes, strides, itemsize, storage_offset,
                                     "computeStorageNbytes");
}

TensorBase empty_generic(IntArrayRef size, c10::Allocator* allocator,
                         c10::DispatchKeySet ks, ScalarType dtype,
                         std::optional<c10::MemoryFormat> memory_format) {
  const char* op = "empty_generic";
  check_dtype(dtype, op);
  const size_t nbytes = c10::checked_contiguous_nbytes(size, c10::elementSize(dtype), op);
  const c10::MemoryFormat format = memory_format.value_or(c10::MemoryFormat::Contiguous);
  TORCH_CHECK(format != c10::MemoryFormat::Preserve, op, ": memory format Preserve "
              "needs an input whose layout to keep, and a new tensor has none. Pass "
              "Contiguous or ChannelsLast.");
  std::vector<int64_t> strides(size.size());
  if (format == c10::MemoryFormat::ChannelsLast) {
    TORCH_CHECK(size.size() == 4, op, ": memory format ChannelsLast needs 4 sizes "
                "(N, C, H, W), but got ", size, ". Pass 4 sizes or use Contiguous.");
    const int64_t c = std::max<int64_t>(size[1], 1);
    const int64_t w = std::max<int64_t>(size[3], 1);
    const int64_t h = std::max<int64_t>(size[2], 1);
    strides = {h * w * c, 1, w * c, c};
  } else {
    int64_t stride = 1;
    for (size_t d = size.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= std::max<int64_t>(size[d], 1);
    }
  }
  return make(size, strides, nbytes, allocator, ks, dtype, op);
}

TensorBase empty_strided_generic(IntArrayRef size, IntArrayRef stride,
                                 c10::Allocator* allocator, c10::DispatchKeySet ks,
                                 ScalarType dtype) {
  const char* op = "empty_strided_generic";
  check_dtype(dtype, op);
  const size_t nbytes = c10::checked_strided_nbytes(size, stride, c10::elementSize(dtype), 0, op);
  return make(size, stride, nbytes, allocator, ks, dtype, op);
}

c10::Allocator* pinned_memory_allocator(c10::DeviceType accelerator, const char* op) {
  c10::Allocator* pinned = c10::GetPinnedMemoryAllocator(accelerator);
  if (pinned == nullptr && c10::impl::autoload_backend_plugin(accelerator)) {
    pinned = c10::GetPinnedMemoryAllocator(accelerator);
  }
  TORCH_CHECK(pinned != nullptr, op, ": no pinned-memory allocator for ",
              c10::DeviceTypeName(accelerator), ": its plugin (libember_",
              c10::DeviceTypeName(accelerator, true), ".so) is not loaded and none was found on "
              "the plugin search path, or it pins no memory. Load it (torch::load_library, "
              "EMBER_PLUGIN_PATH) or do not pin.");
  return pinned;
}

}  // namespace detail
}  // namespace at
