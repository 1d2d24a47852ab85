// aten/FromBlob.h — at::from_blob: a tensor over memory the caller owns.
//
//   float data[6] = {1, 2, 3, 4, 5, 6};
//   at::Tensor t = at::from_blob(data, {2, 3});               // Float, no copy
//   at::Tensor u = at::from_blob(buf, {4}, at::kDouble);      // any dtype
//   at::Tensor v = at::from_blob(p, {3}, [](void* q) { std::free(q); });
//
// The tensor reads and writes `data` in place: nothing is copied, and the
// memory must stay valid (and, for the tensor's life, not be freed by anyone
// else) while the tensor or any view of it exists. With a deleter, the
// deleter is called once with `data` when the last tensor sharing the memory
// goes; without one, the memory is never freed by Ember. Strides default to
// row-major. The storage is not resizable: an op that would have to grow it
// (e.g. resize_ beyond its bytes, or an out= argument of another size)
// throws. options: dtype (default Float), device (default CPU; the memory
// must be on that device), requires_grad (makes the result a leaf that
// requires grad). Thread safety: as for any tensor.
#pragma once

#include <functional>

#include "aten/Tensor.h"
#include "aten/TensorOptions.h"
#include "c10/util/ArrayRef.h"

namespace at {

// at::from_blob
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter,
                 const TensorOptions& options = {});
inline Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                        const TensorOptions& options = {}) {
  return from_blob(data, sizes, IntArrayRef(), deleter, options);
}
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                        const TensorOptions& options = {}) {
  return from_blob(data, sizes, strides, std::function<void(void*)>(), options);
}
inline Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {}) {
  return from_blob(data, sizes, IntArrayRef(), std::function<void(void*)>(), options);
}

}  // namespace at
