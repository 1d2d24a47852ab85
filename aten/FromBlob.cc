#include "aten/FromBlob.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "c10/core/DispatchKey.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/Storage.h"
#include "c10/core/StorageImpl.h"
#include "c10/core/StridedExtent.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"

namespace at {
namespace {

// The DataPtr context of a blob with a deleter: called once, when the
// storage goes, then freed with it.
struct BlobContext {
  void* data;
  std::function<void(void*)> deleter;
};

void delete_blob(void* ctx) {
  auto* blob = static_cast<BlobContext*>(ctx);
  blob->deleter(blob->data);
  delete blob;
}

// Bytes the tensor reaches (Note [Strided extent]). Sizes and strides are
// non-negative here.
size_t reached_bytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize) {
  int64_t bytes = 0;
  TORCH_CHECK(c10::strided_end_bytes(sizes, strides, 0, itemsize, &bytes),
              "from_blob: sizes ", sizes, " with strides ", strides,
              " reach beyond any address; pass smaller sizes or strides.");
  return static_cast<size_t>(bytes);
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, const TensorOptions& options) {
  TORCH_CHECK(options.layout() == Layout::Strided, "from_blob: only the strided layout is "
              "supported, but the options ask for ", options.layout(), ". Drop the layout option.");
  for (int64_t s : sizes) {
    TORCH_CHECK(s >= 0, "from_blob: sizes must be non-negative, but got ", sizes, ".");
  }
  std::vector<int64_t> row_major;
  if (strides.empty() && !sizes.empty()) {
    row_major.assign(sizes.size(), 1);
    for (size_t d = sizes.size() - 1; d > 0; --d) {
      row_major[d - 1] = row_major[d] * std::max<int64_t>(sizes[d], 1);
    }
    strides = row_major;
  }
  TORCH_CHECK(strides.size() == sizes.size(), "from_blob: got ", sizes.size(), " sizes ",
              sizes, " but ", strides.size(), " strides ", strides,
              "; pass one stride per dimension, or none for row-major.");
  for (int64_t s : strides) {
    TORCH_CHECK(s >= 0, "from_blob: strides must be non-negative, but got ", strides, ".");
  }
  const ScalarType dtype = options.dtype();
  const size_t bytes = reached_bytes(sizes, strides, c10::elementSize(dtype));
  TORCH_CHECK(data != nullptr || bytes == 0, "from_blob: data is nullptr, but sizes ", sizes,
              " of ", dtype, " need ", bytes, " bytes. Pass the address of the memory.");
  const Device device = options.device();
  c10::DataPtr data_ptr = deleter ? c10::DataPtr(data, new BlobContext{data, deleter},
                                                 &delete_blob, device)
                                  : c10::DataPtr(data, device);
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), bytes, std::move(data_ptr), /*allocator=*/nullptr,
      /*resizable=*/false));
  Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::computeDispatchKey(device.type())), dtype));
  t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, 0);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

}  // namespace at
