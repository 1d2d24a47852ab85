// c10/core/Layout.h — how a tensor's elements are laid out. Ember has dense
// strided tensors only; the type exists so that PyTorch's factory schemas
// (`Layout? layout=None`) and TensorOptions keep their shape.
#pragma once

#include <cstdint>
#include <ostream>

namespace c10 {

// c10::Layout
enum class Layout : int8_t { Strided = 0 };

constexpr Layout kStrided = Layout::Strided;

inline std::ostream& operator<<(std::ostream& out, Layout layout) {
  switch (layout) {
    case Layout::Strided:
      return out << "Strided";
  }
  return out << "Layout(" << static_cast<int>(layout) << ")";
}

}  // namespace c10

namespace at {
using c10::kStrided;
using c10::Layout;
}  // namespace at
