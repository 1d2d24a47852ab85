// aten/CPUGeneratorImpl.cc — the CPU generator and the default one.
#include "aten/CPUGeneratorImpl.h"

#include <cstring>
#include <random>
#include <utility>

#include "aten/PhiloxRNG.h"
#include "c10/core/CPUAllocator.h"
#include "c10/core/DefaultGenerators.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/Storage.h"
#include "c10/core/StorageImpl.h"

namespace at {
namespace {

void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

CPUGeneratorImpl::CPUGeneratorImpl(uint64_t seed_in)
    : c10::GeneratorImpl(c10::Device(c10::kCPU),
                         c10::DispatchKeySet(c10::DispatchKey::CPU)),
      seed_(seed_in) {}

CPUGeneratorImpl::~CPUGeneratorImpl() = default;

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t CPUGeneratorImpl::current_seed() const { return seed_; }

uint64_t CPUGeneratorImpl::seed() {
  std::random_device device;
  const uint64_t s = (static_cast<uint64_t>(device()) << 32) | device();
  set_current_seed(s);
  return s;
}

void CPUGeneratorImpl::set_offset(uint64_t offset) { offset_ = offset; }

uint64_t CPUGeneratorImpl::get_offset() const { return offset_; }

c10::intrusive_ptr<c10::TensorImpl> CPUGeneratorImpl::get_state() const {
  return detail::philox_state(seed_, offset_);
}

void CPUGeneratorImpl::set_state(const c10::TensorImpl& new_state) {
  const PhiloxCpuState s = detail::read_philox_state(new_state, "CPUGeneratorImpl");
  seed_ = s.seed;
  offset_ = s.offset;
}

PhiloxCpuState CPUGeneratorImpl::philox_engine_inputs(uint64_t blocks) {
  PhiloxCpuState state{seed_, offset_};
  offset_ += blocks;  // wraps modulo 2^64, See Note [Ember's CPU random stream]
  return state;
}

uint32_t CPUGeneratorImpl::random() {
  const PhiloxCpuState s = philox_engine_inputs(1);
  return philox_stream_word(s.seed, s.offset, 0);
}

uint64_t CPUGeneratorImpl::random64() {
  const PhiloxCpuState s = philox_engine_inputs(1);
  const PhiloxBlock b = philox_stream_block(s.seed, s.offset, 0);
  return (static_cast<uint64_t>(b[0]) << 32) | b[1];
}

c10::intrusive_ptr<c10::GeneratorImpl> CPUGeneratorImpl::clone_impl() const {
  auto copy = c10::make_intrusive<CPUGeneratorImpl>(seed_);
  copy->offset_ = offset_;
  return copy;
}

namespace detail {

c10::intrusive_ptr<c10::TensorImpl> philox_state(uint64_t seed, uint64_t offset) {
  constexpr size_t kStateSize = CPUGeneratorImpl::kStateSize;
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), kStateSize, c10::GetCPUAllocator(),
      /*resizable=*/true));
  auto* bytes = static_cast<uint8_t*>(storage.data());
  store_le64(bytes, seed);
  store_le64(bytes + 8, offset);
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), c10::kByte);
  const int64_t size = static_cast<int64_t>(kStateSize);
  impl->set_sizes_contiguous(c10::IntArrayRef(&size, 1));
  return impl;
}

PhiloxCpuState read_philox_state(const c10::TensorImpl& state, const char* who) {
  constexpr size_t kStateSize = CPUGeneratorImpl::kStateSize;
  TORCH_CHECK(state.device().is_cpu() && state.scalar_type() == c10::kByte, who,
              "::set_state: expected a CPU tensor of dtype Byte (from get_state()), but "
              "got dtype ", state.scalar_type(), " on ", state.device(), ". Pass a state "
              "saved by get_state() of an Ember generator.");
  TORCH_CHECK(state.numel() == static_cast<int64_t>(kStateSize) && state.is_contiguous(), who,
              "::set_state: expected a contiguous state of ", kStateSize,
              " bytes (seed and offset), but got ", state.numel(), " bytes",
              state.is_contiguous() ? "" : " (not contiguous)",
              ". Pass a state saved by get_state() of an Ember generator; PyTorch's "
              "states (mt19937 on the CPU, its own Philox layout on CUDA) do not carry over.");
  const auto* bytes = static_cast<const uint8_t*>(state.data());
  return PhiloxCpuState{load_le64(bytes), load_le64(bytes + 8)};
}

const Generator& getDefaultCPUGenerator() {
  // Never destroyed: ops may draw from it during static destruction.
  static const Generator* const generator =
      new Generator(createCPUGenerator(c10::default_rng_seed_val));
  return *generator;
}

Generator createCPUGenerator(uint64_t seed_val) {
  return make_generator<CPUGeneratorImpl>(seed_val);
}

namespace {

const Generator& cpuDefaultGenerator(c10::DeviceIndex /*device_index*/) {
  return getDefaultCPUGenerator();
}

// The CPU's entry in the default-generator registry, which is how
// manual_seed finds it. Never unregistered: ops may draw from the default
// generator during exit.
[[maybe_unused]] const bool g_cpu_generator_registered = [] {
  register_default_generator(c10::DeviceType::CPU, &cpuDefaultGenerator,
                             "aten/CPUGeneratorImpl.cc")
      .release();
  return true;
}();

}  // namespace
}  // namespace detail

void manual_seed(uint64_t seed) {
  // Each generator under its own lock, one after the other: a seed is not
  // one atomic step across devices (nor is it in PyTorch).
  for (const Generator& gen : detail::getAllDefaultGenerators()) {
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen->set_current_seed(seed);
  }
}

}  // namespace at
