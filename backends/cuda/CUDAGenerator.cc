// backends/cuda/CUDAGenerator.cc — each CUDA device's default generator
// (seed and Philox offset, See CUDAGeneratorImpl.h), registered for
// DeviceType::CUDA so that at::manual_seed and torch::cuda::manual_seed(_all)
// reach it. The random kernels (random_ops.cc) reserve their stream ranges
// from it.
#include "backends/cuda/CUDAGeneratorImpl.h"

#include <mutex>
#include <random>

#include "backends/cuda/CUDAGuardImpl.h"
#include "backends/cuda/stream_ids.h"
#include "c10/core/DefaultGenerators.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/util/Exception.h"

namespace ember {
namespace cuda {

CUDAGeneratorImpl::CUDAGeneratorImpl(c10::DeviceIndex index)
    : c10::GeneratorImpl(c10::Device(c10::kCUDA, index),
                         c10::DispatchKeySet(c10::DispatchKey::CUDA)),
      seed_(c10::default_rng_seed_val) {}

void CUDAGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t CUDAGeneratorImpl::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  set_current_seed(s);
  return s;
}

at::PhiloxCpuState CUDAGeneratorImpl::philox_engine_inputs(uint64_t blocks) {
  const at::PhiloxCpuState state{seed_, offset_};
  offset_ += blocks;  // wraps modulo 2^64, as the CPU generator's
  return state;
}

c10::intrusive_ptr<c10::TensorImpl> CUDAGeneratorImpl::get_state() const {
  return at::detail::philox_state(seed_, offset_);
}

void CUDAGeneratorImpl::set_state(const c10::TensorImpl& new_state) {
  const at::PhiloxCpuState s = at::detail::read_philox_state(new_state, "CUDAGeneratorImpl");
  seed_ = s.seed;
  offset_ = s.offset;
}

c10::intrusive_ptr<c10::GeneratorImpl> CUDAGeneratorImpl::clone_impl() const {
  auto copy = c10::make_intrusive<CUDAGeneratorImpl>(device().index());
  copy->seed_ = seed_;
  copy->offset_ = offset_;
  return copy;
}

const at::Generator& default_cuda_generator(c10::DeviceIndex index) {
  // One per device, created on first use and never destroyed (the registry
  // hands out references).
  static at::Generator* generators = [] {
    auto* gens = new at::Generator[kMaxCudaDevices];
    for (int i = 0; i < deviceCount(); ++i) {
      gens[i] = at::make_generator<CUDAGeneratorImpl>(static_cast<c10::DeviceIndex>(i));
    }
    return gens;
  }();
  checkDeviceIndex(index, "default CUDA generator");
  return generators[index];
}

at::PhiloxCpuState reserve_philox(const std::optional<at::Generator>& generator,
                                  c10::Device device, uint64_t words, const char* op) {
  CUDAGeneratorImpl* gen = nullptr;
  if (generator.has_value() && generator->defined()) {
    gen = generator->get<CUDAGeneratorImpl>();
    TORCH_CHECK(gen->device() == device, op, ": the generator belongs to ", gen->device(),
                " but the tensor is on ", device, ". Pass that device's generator.");
  } else {
    gen = default_cuda_generator(device.index()).get<CUDAGeneratorImpl>();
  }
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return gen->philox_engine_inputs(words / 4 + (words % 4 != 0 ? 1 : 0));
}

namespace {
C10_REGISTER_DEFAULT_GENERATOR(CUDA, default_cuda_generator);
}  // namespace

}  // namespace cuda
}  // namespace ember
