// autograd/input_buffer.h — the gradients arriving at a Node's inputs,
// summed where several arrive at the same one, and ordered against the
// streams that produced them.
//
//   InputBuffer buffer(consumer->num_inputs());
//   buffer.add(edge.input_nr, std::move(grad), producer->stream(),
//              consumer->stream());
//   variable_list inputs = InputBuffer::variables(std::move(buffer));
//
// The engine fills one per Node that is waiting for gradients; code that
// starts a backward pass of its own passes an empty one for the root
// (Engine::execute_with_graph_task).
#pragma once

#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/Stream.h"

namespace torch {
namespace autograd {

// torch::autograd::InputBuffer
//
// One slot per input of a Node. Move-only; not thread-safe (the engine
// fills a buffer under its GraphTask's mutex).
class InputBuffer {
 public:
  explicit InputBuffer(size_t size) : buffer_(size) {}
  InputBuffer(InputBuffer&&) = default;
  InputBuffer& operator=(InputBuffer&&) = default;

  // torch::autograd::InputBuffer::add
  //
  // Adds `var` at position `pos`: keeps it when it is the first one there,
  // sums (out of place) otherwise. An undefined `var` changes nothing.
  //
  // opt_producer_stream is the stream() of the Node that computed `var`,
  // opt_consumer_stream that of the Node this buffer is for. For a `var` on
  // a device whose runtime is registered, the stream that will use `var`
  // (the accumulation stream) first waits, through a c10::Event, for the
  // stream that made it, and a sum runs on the accumulation stream:
  //   - var on the devices of both streams: accumulate on the consumer's
  //     stream, after the producer's (no event when they are one stream);
  //   - var on the consumer's device only: on the consumer's stream, after
  //     that device's default stream;
  //   - var on the producer's device only: on the device's default stream,
  //     after the producer's stream;
  //   - neither: on the default stream of var's device, with no wait.
  // See Note [Streams of a backward pass] in autograd/engine.cc. CPU
  // gradients (and devices without a runtime) need neither: they cost one
  // compare of the device type.
  void add(size_t pos, at::Tensor&& var,
           const std::optional<c10::Stream>& opt_producer_stream = std::nullopt,
           const std::optional<c10::Stream>& opt_consumer_stream = std::nullopt);

  size_t size() const { return buffer_.size(); }

  // torch::autograd::InputBuffer::device
  //
  // The device of the first gradient present (the CPU when there is none):
  // the engine runs the Node on that device's queue.
  c10::Device device() const {
    for (const at::Tensor& t : buffer_) {
      if (t.defined()) return t.device();
    }
    return c10::Device(c10::DeviceType::CPU);
  }

  // torch::autograd::InputBuffer::variables
  //
  // The gradients, one per input (undefined where none arrived).
  static std::vector<at::Tensor> variables(InputBuffer&& g) { return std::move(g.buffer_); }

 private:
  // add() for a `var` on a device with a runtime.
  void add_on_device(at::Tensor& slot, at::Tensor&& var,
                     const std::optional<c10::Stream>& opt_producer_stream,
                     const std::optional<c10::Stream>& opt_consumer_stream);

  std::vector<at::Tensor> buffer_;
};

}  // namespace autograd
}  // namespace torch
