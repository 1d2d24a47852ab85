// aten/CPUGeneratorImpl.h — the CPU random number generator, the process's
// default one, and at::manual_seed.
//
//   at::manual_seed(0);                                  // the default generator
//   at::Tensor a = at::rand({3});
//   at::Generator g = at::make_generator<at::CPUGeneratorImpl>(42);
//   at::Tensor b = at::randn({3}, g);                    // a private stream
//   at::Tensor state;
//   {
//     std::lock_guard<std::mutex> lock(g.mutex());
//     state = g.get_state();                             // 16 bytes
//   }
//   at::Tensor c = at::randn({3}, g);
//   g.set_state(state);                                  // (under the lock)
//   // at::randn({3}, g) now equals c again.
//
// The engine is Philox4x32-10 (aten/PhiloxRNG.h): the numbers an op draws
// depend on the seed, the generator's offset and the element index only, so
// they are the same whatever the number of threads. They are not PyTorch's
// numbers (its CPU generator is an mt19937); see docs/ops/random.md.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>

#include "c10/core/GeneratorImpl.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"

namespace at {

// at::PhiloxCpuState — what a kernel needs to compute its numbers: the key
// and the first block of the range it reserved.
struct PhiloxCpuState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

// at::CPUGeneratorImpl
//
// A seed and an offset (in Philox blocks; See Note [Ember's CPU random
// stream]). Thread safety: as c10::GeneratorImpl — lock mutex_ around every
// call but device()/key_set(). Kernels hold the lock only while reserving
// their range of blocks (philox_engine_inputs), then compute unlocked.
class CPUGeneratorImpl : public c10::GeneratorImpl {
 public:
  explicit CPUGeneratorImpl(uint64_t seed_in = c10::default_rng_seed_val);
  ~CPUGeneratorImpl() override;

  // Restarts the stream: seed = `seed`, offset = 0.
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override;
  // Seeds from std::random_device and returns the seed.
  uint64_t seed() override;

  // at::CPUGeneratorImpl::set_offset / get_offset
  //
  // The next block an op will reserve; set_offset skips to any point of the
  // stream.
  void set_offset(uint64_t offset);
  uint64_t get_offset() const;

  // at::CPUGeneratorImpl::get_state / set_state
  //
  // The state is a 1-d Byte tensor of 16 bytes: the seed, then the offset,
  // each a little-endian uint64. set_state refuses any other dtype, size or
  // device with a message that says what it expected.
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  void set_state(const c10::TensorImpl& new_state) override;

  // at::CPUGeneratorImpl::philox_engine_inputs
  //
  // Reserves `blocks` consecutive Philox blocks and returns the key and the
  // first block; the offset moves past them. Lock mutex_ first.
  PhiloxCpuState philox_engine_inputs(uint64_t blocks);

  // at::CPUGeneratorImpl::random / random64
  //
  // One 32-bit or 64-bit number from the next block (one block each). Lock
  // mutex_ first.
  uint32_t random();
  uint64_t random64();

  static constexpr size_t kStateSize = 16;

 protected:
  c10::intrusive_ptr<c10::GeneratorImpl> clone_impl() const override;

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

namespace detail {

// at::detail::philox_state / read_philox_state
//
// The state of a Philox generator (seed and offset) as get_state returns it:
// a 1-d CPU Byte tensor of 16 bytes, the seed then the offset, each a
// little-endian uint64. The CPU's and each CUDA device's generators share
// it, so a state saved from one applies to any (their streams are the same).
// read_philox_state refuses any other dtype, size or device, naming `who`
// (e.g. "CPUGeneratorImpl") in the message.
c10::intrusive_ptr<c10::TensorImpl> philox_state(uint64_t seed, uint64_t offset);
PhiloxCpuState read_philox_state(const c10::TensorImpl& state, const char* who);

// at::detail::getDefaultCPUGenerator
//
// The process's CPU generator, used by every random op that is given no
// generator; seeded with c10::default_rng_seed_val at first use. Thread-safe
// (lock its mutex() around seeding, as for any generator).
const Generator& getDefaultCPUGenerator();

// at::detail::createCPUGenerator — a new CPU generator.
Generator createCPUGenerator(uint64_t seed_val = c10::default_rng_seed_val);

}  // namespace detail

// at::manual_seed
//
// Seeds every default generator, as PyTorch's torch.manual_seed does: the
// CPU one and, for each device type whose backend registered its default
// generators (c10/core/DefaultGenerators.h), the one of every device of
// that type. Each is seeded (and its stream restarted) under its own lock.
// Throws c10::Error if a backend registered generators but no device
// runtime; the CPU generator is seeded before any other.
void manual_seed(uint64_t seed);

// at::get_generator_or_default<T>
//
// The engine of `gen` if it is given and defined, else of `default_gen`, as
// a T; throws c10::Error if it is not a T (e.g. a CUDA generator passed to
// a CPU op).
template <typename T>
T* get_generator_or_default(const std::optional<Generator>& gen,
                            const Generator& default_gen) {
  return gen.has_value() && gen->defined() ? gen->get<T>() : default_gen.get<T>();
}

// at::check_generator<T> — the engine of a given, defined generator as a T.
template <typename T>
T* check_generator(const std::optional<Generator>& gen) {
  TORCH_CHECK(gen.has_value() && gen->defined(),
              "check_generator: expected a generator, but got none. Pass a "
              "defined at::Generator.");
  return gen->get<T>();
}

}  // namespace at
