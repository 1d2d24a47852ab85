// backends/cuda/CUDAGenerator.cc — each CUDA device's default generator
// (seed and Philox offset), registered for DeviceType::CUDA so that
// at::manual_seed and torch::cuda::manual_seed(_all) reach it.
//
// Ember has no CUDA random kernels yet; when it does they draw from this
// state, the CPU plugin's Philox layout (seed, offset), so a seed gives the
// same stream on both devices.
#include <cstdint>
#include <random>

#include "backends/cuda/CUDAGuardImpl.h"
#include "backends/cuda/stream_ids.h"
#include "c10/core/DefaultGenerators.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/GeneratorImpl.h"

namespace ember {
namespace cuda {
namespace {

class CUDAGeneratorImpl final : public c10::GeneratorImpl {
 public:
  explicit CUDAGeneratorImpl(c10::DeviceIndex index)
      : c10::GeneratorImpl(c10::Device(c10::kCUDA, index),
                           c10::DispatchKeySet(c10::DispatchKey::CUDA)) {}

  void set_current_seed(uint64_t seed) override {
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override {
    std::random_device rd;
    const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
    set_current_seed(s);
    return s;
  }

 private:
  uint64_t seed_ = c10::default_rng_seed_val;
  uint64_t offset_ = 0;
};

const at::Generator& defaultCudaGenerator(c10::DeviceIndex index) {
  // One per device, created on first use and never destroyed (the registry
  // hands out references).
  static at::Generator* generators = [] {
    auto* gens = new at::Generator[kMaxCudaDevices];
    for (int i = 0; i < deviceCount(); ++i) {
      gens[i] = at::make_generator<CUDAGeneratorImpl>(
          static_cast<c10::DeviceIndex>(i));
    }
    return gens;
  }();
  checkDeviceIndex(index, "default CUDA generator");
  return generators[index];
}

C10_REGISTER_DEFAULT_GENERATOR(CUDA, defaultCudaGenerator);

}  // namespace
}  // namespace cuda
}  // namespace ember
