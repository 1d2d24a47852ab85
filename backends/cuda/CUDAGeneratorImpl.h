// backends/cuda/CUDAGeneratorImpl.h — a CUDA device's generator: a seed and
// a Philox offset, the CPU generator's layout (Note [Ember's CPU random
// stream] in aten/PhiloxRNG.h), so one seed gives the same stream on both
// devices.
//
//   CUDAGeneratorImpl* gen = default_cuda_generator(device.index());
//   std::lock_guard<std::mutex> lock(gen->mutex_);
//   const at::PhiloxCpuState s = gen->philox_engine_inputs(blocks);
//
// Internal to the plugin: programs seed it through at::manual_seed and
// torch::cuda::manual_seed(_all).
#pragma once

#include <cstdint>
#include <optional>

#include "aten/CPUGeneratorImpl.h"  // at::PhiloxCpuState, get_generator_or_default
#include "c10/core/Device.h"
#include "c10/core/GeneratorImpl.h"

namespace ember {
namespace cuda {

class CUDAGeneratorImpl final : public c10::GeneratorImpl {
 public:
  explicit CUDAGeneratorImpl(c10::DeviceIndex index);

  // Restarts the stream: seed = `seed`, offset = 0.
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override { return seed_; }
  // Seeds from std::random_device and returns the seed.
  uint64_t seed() override;

  // The next block an op will reserve.
  uint64_t get_offset() const { return offset_; }
  void set_offset(uint64_t offset) { offset_ = offset; }

  // The CPU generator's 16-byte state, seed then offset (at::detail::
  // philox_state): a state saved from either applies to the other, and a
  // CUDA tensor then draws what a CPU tensor would. Lock mutex_ first.
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  void set_state(const c10::TensorImpl& new_state) override;

  // Reserves `blocks` consecutive Philox blocks and returns the key and the
  // first block; the offset moves past them (modulo 2^64). Lock mutex_
  // first.
  at::PhiloxCpuState philox_engine_inputs(uint64_t blocks);

 protected:
  c10::intrusive_ptr<c10::GeneratorImpl> clone_impl() const override;

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The default generator of CUDA device `index` (checked).
const at::Generator& default_cuda_generator(c10::DeviceIndex index);

// Reserves ceil(words / 4) blocks from `generator`, or from the default
// generator of `device` when it is absent or undefined, holding its mutex
// only for that. A generator of another kind or of another device is
// refused with a message saying which was expected.
at::PhiloxCpuState reserve_philox(const std::optional<at::Generator>& generator,
                                  c10::Device device, uint64_t words, const char* op);

}  // namespace cuda
}  // namespace ember
