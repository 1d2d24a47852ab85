// c10/core/Stream.h — a stream: an ordered queue of work on one device.
//
//   c10::Stream s(c10::Stream::UNSAFE, c10::Device("cuda:1"), 3);
//   s.device();          // cuda:1
//   s.id();              // 3
//   std::cout << s;      // "stream 3 on device cuda:1"
//   c10::Stream d(c10::Stream::DEFAULT, c10::Device("cuda:1"));  // id 0
//
// A Stream is only a name (device plus an id the device's runtime gave out);
// it owns nothing and is cheap to copy, compare and hash. What a stream id
// means, and how work is queued on it, belongs to the device's runtime
// (c10::impl::DeviceGuardImplInterface, which also gives out the ids:
// getStream, getDefaultStream, getStreamFromGlobalPool). To make a stream
// current for a scope use c10::StreamGuard (c10/core/StreamGuard.h); to
// order work between streams use c10::Event (c10/core/Event.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"

namespace c10 {

// c10::StreamId
//
// A runtime's name for one of its streams on one device. 0 is the device's
// default stream on every runtime; the other values are the runtime's own.
using StreamId = int64_t;

// c10::kDefaultStreamId
constexpr StreamId kDefaultStreamId = 0;

// c10::StreamData3
//
// A stream as three plain values, for passing through code that only carries
// integers (e.g. a boxed IValue); see Stream::pack3 and Stream::unpack3.
struct StreamData3 {
  StreamId stream_id;
  DeviceIndex device_index;
  DeviceType device_type;
};

// c10::Stream
//
// A device and a StreamId. There is no default constructor: a stream is
// always on some device. Use the DEFAULT constructor for the default stream;
// the UNSAFE one takes an id as the runtime gave it out and does not check
// that the runtime knows it.
class Stream final {
 public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };

  // c10::Stream::Stream(UNSAFE, device, id)
  //
  // The stream `id` of `device`, unchecked: only a runtime (or code that got
  // the id from one) should build streams this way.
  explicit Stream(Unsafe, Device device, StreamId id) noexcept
      : device_(device), id_(id) {}

  // c10::Stream::Stream(DEFAULT, device)
  //
  // The default stream (id 0) of `device`.
  explicit Stream(Default, Device device) noexcept
      : device_(device), id_(kDefaultStreamId) {}

  bool operator==(const Stream& other) const noexcept {
    return device_ == other.device_ && id_ == other.id_;
  }
  bool operator!=(const Stream& other) const noexcept {
    return !(*this == other);
  }

  Device device() const noexcept { return device_; }
  DeviceType device_type() const noexcept { return device_.type(); }
  DeviceIndex device_index() const noexcept { return device_.index(); }
  StreamId id() const noexcept { return id_; }

  // c10::Stream::hash
  //
  // Mixes the device and all 64 bits of the id; std::hash<c10::Stream>
  // returns it.
  size_t hash() const noexcept {
    uint64_t h = static_cast<uint64_t>(id_);
    h ^= (static_cast<uint64_t>(static_cast<uint8_t>(device_type())) << 56) ^
         (static_cast<uint64_t>(static_cast<uint8_t>(device_index())) << 48);
    // The finalizer of MurmurHash3: every input bit reaches every output bit,
    // so small ids on different devices do not collide in a hash table.
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return static_cast<size_t>(h);
  }

  // c10::Stream::pack3 / unpack3
  //
  // The stream as three values and back; unpack3(pack3()) == *this. unpack3
  // checks the device as c10::Device does (throws c10::Error for a CPU index
  // other than -1 or 0, or a negative index other than -1).
  StreamData3 pack3() const noexcept {
    return StreamData3{id_, device_index(), device_type()};
  }
  static Stream unpack3(StreamId stream_id, DeviceIndex device_index,
                        DeviceType device_type) {
    return Stream(UNSAFE, Device(device_type, device_index), stream_id);
  }

 private:
  Device device_;
  StreamId id_;
};

// Prints "stream <id> on device <device>", e.g. "stream 0 on device cuda:1".
std::ostream& operator<<(std::ostream& out, const Stream& stream);

}  // namespace c10

namespace std {
template <>
struct hash<c10::Stream> {
  size_t operator()(c10::Stream s) const noexcept { return s.hash(); }
};
}  // namespace std
