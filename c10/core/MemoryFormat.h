// c10/core/MemoryFormat.h — the order in which a new tensor's strides are
// laid out: row-major (Contiguous), that of the input (Preserve), or NHWC
// (ChannelsLast, 4-d only).
#pragma once

#include <cstdint>
#include <ostream>

namespace c10 {

// c10::MemoryFormat
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2 };

inline std::ostream& operator<<(std::ostream& out, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous:
      return out << "Contiguous";
    case MemoryFormat::Preserve:
      return out << "Preserve";
    case MemoryFormat::ChannelsLast:
      return out << "ChannelsLast";
  }
  return out << "MemoryFormat(" << static_cast<int>(format) << ")";
}

}  // namespace c10

namespace at {
using c10::MemoryFormat;
}  // namespace at
