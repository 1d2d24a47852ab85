// autograd/input_buffer.cc — summing gradients, and the stream rules of
// InputBuffer::add.
#include "autograd/input_buffer.h"

#include "aten/Functions.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/Event.h"
#include "c10/core/StreamGuard.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"

namespace torch {
namespace autograd {

namespace {

void accumulate(at::Tensor& slot, at::Tensor&& var) {
  if (!slot.defined()) {
    slot = std::move(var);
    return;
  }
  // Out of place: either side may be referenced elsewhere (a captured
  // gradient, a retained .grad), and under create_graph the sum must have
  // history.
  slot = at::add(slot, var);
}

}  // namespace

void InputBuffer::add(size_t pos, at::Tensor&& var,
                      const std::optional<c10::Stream>& opt_producer_stream,
                      const std::optional<c10::Stream>& opt_consumer_stream) {
  TORCH_INTERNAL_ASSERT(pos < buffer_.size(), "InputBuffer::add: position ", pos,
                        " out of range for ", buffer_.size(), " inputs");
  if (!var.defined()) return;
  const c10::DeviceType type = var.device().type();
  if (type == c10::DeviceType::CPU || !c10::impl::hasDeviceGuardImpl(type)) {
    accumulate(buffer_[pos], std::move(var));
    return;
  }
  add_on_device(buffer_[pos], std::move(var), opt_producer_stream, opt_consumer_stream);
}

void InputBuffer::add_on_device(at::Tensor& slot, at::Tensor&& var,
                                const std::optional<c10::Stream>& opt_producer_stream,
                                const std::optional<c10::Stream>& opt_consumer_stream) {
  // See Note [Streams of a backward pass] in autograd/engine.cc.
  const c10::Device device = var.device();
  const c10::impl::DeviceGuardImplInterface* impl =
      c10::impl::getDeviceGuardImpl(device.type());
  const bool on_producer = opt_producer_stream && opt_producer_stream->device() == device;
  const bool on_consumer = opt_consumer_stream && opt_consumer_stream->device() == device;
  // The stream that uses `var` next, and the one it must wait for first.
  std::optional<c10::Stream> sync_stream;
  const c10::Stream accumulate_stream =
      on_consumer ? *opt_consumer_stream : impl->getDefaultStream(device);
  if (on_consumer) {
    sync_stream = on_producer ? *opt_producer_stream : impl->getDefaultStream(device);
  } else if (on_producer) {
    sync_stream = *opt_producer_stream;
  }
  if (sync_stream && *sync_stream != accumulate_stream) {
    // A runtime may create the native event on the current device (CUDA
    // does): make the recording stream's device current for the record.
    c10::DeviceGuard device_guard(sync_stream->device());
    c10::Event ready(device.type());
    ready.record(*sync_stream);
    ready.block(accumulate_stream);
    // Destroying the event now is safe: the wait is already queued.
  }
  if (!slot.defined()) {
    slot = std::move(var);
    return;
  }
  c10::StreamGuard stream_guard(accumulate_stream);
  accumulate(slot, std::move(var));
}

}  // namespace autograd
}  // namespace torch
