// c10/core/Stream.cc — printing a c10::Stream.
#include "c10/core/Stream.h"

namespace c10 {

std::ostream& operator<<(std::ostream& out, const Stream& stream) {
  return out << "stream " << stream.id() << " on device " << stream.device();
}

}  // namespace c10
