// aten/ScalarOps.cc — see ScalarOps.h.
#include "aten/ScalarOps.h"

#include <cstdint>
#include <utility>

#include "c10/core/CPUAllocator.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/Storage.h"
#include "c10/core/StorageImpl.h"
#include "c10/core/TensorImpl.h"

namespace at {

// Note [Wrapped numbers without dispatch]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every Scalar overload (x * 1.0001, grad * other in a backward, alpha-free
// add of a number) wraps its Scalar in a 0-dim tensor and runs the Tensor
// overload. Through the dispatcher that is scalar_tensor -> empty ->
// BackendSelect -> CPU empty -> fill_ (a TensorIterator for one element):
// about a tenth of an autograd chain's backward. A CPU tensor of one element
// is just a StorageImpl from the CPU allocator and a TensorImpl, which the
// core may build itself (as CPUGeneratorImpl::get_state does); storing one
// value of dtype Double, Long or Bool is not a kernel. Other devices keep the
// dispatching path, so their backends decide how their scalars live.
Tensor wrapped_scalar_tensor(const Scalar& s, Device device) {
  Tensor t;
  if (device.is_cpu()) {
    const ScalarType dtype = s.type();
    c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
        c10::StorageImpl::use_byte_size_t(), c10::elementSize(dtype), c10::GetCPUAllocator(),
        /*resizable=*/true));
    void* data = storage.data();
    switch (dtype) {
      case ScalarType::Double:
        *static_cast<double*>(data) = s.toDouble();
        break;
      case ScalarType::Long:
        *static_cast<int64_t*>(data) = s.toLong();
        break;
      default:  // Bool, the only other type a Scalar reports
        *static_cast<bool*>(data) = s.toBool();
        break;
    }
    t = Tensor(c10::make_intrusive<c10::TensorImpl>(
        std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), dtype));
  } else {
    t = at::scalar_tensor(s, TensorOptions().dtype(s.type()).device(device));
  }
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace at
