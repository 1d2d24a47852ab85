// aten/Generator.cc — at::Generator's members that take or return at::Tensor
// (declared in c10/core/GeneratorImpl.h, where at::Tensor is incomplete).
#include "aten/Tensor.h"
#include "c10/core/GeneratorImpl.h"

namespace at {

Tensor Generator::get_state() const {
  return Tensor(checked("get_state")->get_state());
}

void Generator::set_state(const Tensor& new_state) {
  TORCH_CHECK(new_state.defined(), "Generator::set_state: the state tensor is "
              "undefined. Pass a tensor returned by get_state().");
  checked("set_state")->set_state(*new_state.unsafeGetTensorImpl());
}

}  // namespace at
