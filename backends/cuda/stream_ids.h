// backends/cuda/stream_ids.h — how a c10::StreamId names a CUDA stream: the
// default stream or one slot of a device's stream pool.
//
// Note [CUDA stream ids]
// ~~~~~~~~~~~~~~~~~~~~~~
// Id 0 is the device's default (legacy null) stream. The pool of each device
// holds kStreamsPerPool low- and kStreamsPerPool high-priority streams,
// created on first use and never destroyed; getStreamFromPool hands them
// out round-robin, as PyTorch does. Low-priority slot i has id 1 + i,
// high-priority slot i has id 1 + kStreamsPerPool + i. Device-free, so the
// encoding is tested in CI.
#pragma once

#include <cstdint>

#include "c10/core/Stream.h"

namespace ember {
namespace cuda {

constexpr int kStreamsPerPool = 32;
// The device indices a process can address (cudaGetDeviceCount is capped
// to this; no machine Ember targets has more).
constexpr int kMaxCudaDevices = 64;

enum class StreamKind { kDefault, kLowPriority, kHighPriority, kInvalid };

constexpr c10::StreamId poolStreamId(bool high_priority, int slot) {
  return 1 + (high_priority ? kStreamsPerPool : 0) + slot;
}

constexpr StreamKind streamKind(c10::StreamId id) {
  return id == 0                          ? StreamKind::kDefault
         : id >= 1 && id <= kStreamsPerPool ? StreamKind::kLowPriority
         : id > kStreamsPerPool && id <= 2 * kStreamsPerPool
             ? StreamKind::kHighPriority
             : StreamKind::kInvalid;
}

// The pool slot of a pool stream's id (streamKind is kLow/kHighPriority).
constexpr int streamSlot(c10::StreamId id) {
  return static_cast<int>((id - 1) % kStreamsPerPool);
}

static_assert(streamKind(poolStreamId(false, 0)) == StreamKind::kLowPriority &&
                  streamKind(poolStreamId(true, kStreamsPerPool - 1)) ==
                      StreamKind::kHighPriority &&
                  streamSlot(poolStreamId(true, 5)) == 5,
              "See Note [CUDA stream ids]");

}  // namespace cuda
}  // namespace ember
