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

namespace at {
namespace detail {
namespace {

void check_sizes(IntArrayRef sizes, const char* op) {
  for (size_t d = 0; d < sizes.size(); ++d) {
    TORCH_CHECK(sizes[d] >= 0, op, ": sizes must be non-negative, but got ", sizes,
                " (size ", sizes[d], " at dimension ", d, "). Pass sizes >= 0.");
  }
}

void check_dtype(ScalarType dtype, const char* op) {
  TORCH_CHECK(dtype != ScalarType::Undefined && dtype != ScalarType::NumOptions, op,
              ": expected a dtype such as Float or Long, but got ", dtype,
              ". Pass c10::dtype_or_default(dtype) for a factory's optional dtype.");
}

size_t checked_bytes(uint64_t elements, size_t itemsize, IntArrayRef sizes,
                     const char* op) {
  uint64_t bytes = 0;
  TORCH_CHECK(!__builtin_mul_overflow(elements, static_cast<uint64_t>(itemsize), &bytes) &&
                  bytes <= static_cast<uint64_t>(INT64_MAX),
              op, ": a tensor of sizes ", sizes, " with ", itemsize,
              "-byte elements needs more bytes than a 64-bit size holds. Use "
              "smaller sizes.");
  return static_cast<size_t>(bytes);
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
  check_sizes(sizes, "computeStorageNbytesContiguous");
  uint64_t elements = 1;
  for (int64_t s : sizes) {
    TORCH_CHECK(!__builtin_mul_overflow(elements, static_cast<uint64_t>(s), &elements),
                "computeStorageNbytesContiguous: sizes ", sizes,
                " hold more elements than a 64-bit size holds. Use smaller sizes.");
  }
  return checked_bytes(elements, itemsize, sizes, "computeStorageNbytesContiguous");
}

size_t computeStorageNbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize,
                            size_t storage_offset) {
  const char* op = "computeStorageNbytes";
  TORCH_CHECK(sizes.size() == strides.size(), op, ": got ", sizes.size(), " sizes ",
              sizes, " but ", strides.size(), " strides ", strides,
              "; pass one stride per dimension.");
  check_sizes(sizes, op);
  for (size_t d = 0; d < strides.size(); ++d) {
    TORCH_CHECK(strides[d] >= 0, op, ": strides must be non-negative, but got ",
                strides, " (stride ", strides[d], " at dimension ", d, ").");
  }
  int64_t extent = 0;  // See Note [Strided extent]
  TORCH_CHECK(c10::strided_extent(sizes, strides, &extent), op, ": sizes ", sizes,
              " with strides ", strides,
              " reach further than a 64-bit size holds. Use smaller sizes.");
  if (extent == 0) return 0;
  uint64_t elements = 0;
  TORCH_CHECK(!__builtin_add_overflow(static_cast<uint64_t>(extent),
                                      static_cast<uint64_t>(storage_offset), &elements),
              op, ": storage offset ", storage_offset, " overflows.");
  return checked_bytes(elements, itemsize, sizes, op);
}

TensorBase empty_generic(IntArrayRef size, c10::Allocator* allocator,
                         c10::DispatchKeySet ks, ScalarType dtype,
                         std::optional<c10::MemoryFormat> memory_format) {
  const char* op = "empty_generic";
  check_dtype(dtype, op);
  const size_t nbytes = computeStorageNbytesContiguous(size, c10::elementSize(dtype));
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
  const size_t nbytes = computeStorageNbytes(size, stride, c10::elementSize(dtype));
  return make(size, stride, nbytes, allocator, ks, dtype, op);
}

}  // namespace detail
}  // namespace at
