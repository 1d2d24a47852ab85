// c10/core/GeneratorImpl.h — the base of random number generators and the
// at::Generator handle that ops take.
//
// A generator is per-device state (a seed and whatever the engine keeps)
// shared by every op that draws random numbers from it. This header holds
// only the abstract base and the reference-counted handle; concrete engines
// (the CPU one, a backend's) derive from c10::GeneratorImpl elsewhere.
//
//   struct CountingGenerator : c10::GeneratorImpl {
//     CountingGenerator()
//         : GeneratorImpl(c10::Device(c10::kCPU),
//                         c10::DispatchKeySet(c10::DispatchKey::CPU)) {}
//     void set_current_seed(uint64_t s) override { seed_ = s; }
//     uint64_t current_seed() const override { return seed_; }
//     uint64_t seed() override { return seed_ = 42; }
//     uint64_t seed_ = 0;
//   };
//   at::Generator gen = at::make_generator<CountingGenerator>();
//   {
//     std::lock_guard<std::mutex> lock(gen.mutex());
//     gen.set_current_seed(7);
//   }
//   CountingGenerator* impl = gen.get<CountingGenerator>();  // checked cast
//
// Do not use this for a generator that is private to one object and never
// handed to ops: a plain engine member is simpler.
#pragma once

#include <cstdint>
#include <mutex>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "c10/core/Device.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"
#include "c10/util/intrusive_ptr.h"

namespace at {
class Tensor;  // aten/Tensor.h; see at::Generator::get_state
}  // namespace at

namespace c10 {

// c10::default_rng_seed_val
//
// The seed a default generator starts from, PyTorch's value.
constexpr uint64_t default_rng_seed_val = 67280421310721;

// c10::GeneratorImpl
//
// Abstract base of every generator engine: the device it produces numbers
// for, the dispatch keys of that device, and the seed interface. Held by
// intrusive_ptr (through at::Generator); neither copyable nor movable, since
// copies of a generator's state are explicit in PyTorch (clone()).
//
// Thread safety: the device and key set never change and may be read from
// any thread. Everything else — seeding and drawing numbers — mutates the
// engine, so callers lock `mutex_` around it, as in PyTorch. The base does
// not lock on the caller's behalf: an op that draws many numbers takes the
// lock once, not once per number.
class GeneratorImpl : public intrusive_ptr_target {
 public:
  GeneratorImpl(Device device, DispatchKeySet key_set);
  ~GeneratorImpl() override;

  GeneratorImpl(const GeneratorImpl&) = delete;
  GeneratorImpl& operator=(const GeneratorImpl&) = delete;
  GeneratorImpl(GeneratorImpl&&) = delete;
  GeneratorImpl& operator=(GeneratorImpl&&) = delete;

  // c10::GeneratorImpl::set_current_seed / current_seed
  //
  // Restarts the engine from `seed`; the seed the engine was last started
  // from. Lock `mutex_` first.
  virtual void set_current_seed(uint64_t seed) = 0;
  virtual uint64_t current_seed() const = 0;

  // c10::GeneratorImpl::seed
  //
  // Restarts the engine from a non-deterministic seed (e.g. from
  // std::random_device) and returns that seed. Lock `mutex_` first.
  virtual uint64_t seed() = 0;

  // c10::GeneratorImpl::device / key_set
  //
  // Fixed at construction.
  Device device() const { return device_; }
  DispatchKeySet key_set() const { return key_set_; }

  // c10::GeneratorImpl::clone
  //
  // A new engine in the same state as this one, which it shares nothing
  // with. Lock `mutex_` first. Throws c10::Error for an engine that does not
  // implement clone_impl().
  c10::intrusive_ptr<GeneratorImpl> clone() const;

  // c10::GeneratorImpl::get_state / set_state
  //
  // The engine's whole state as a new CPU tensor of bytes (dtype Byte,
  // 1-d), and the restoring of a state from such a tensor; the format is
  // the engine's own (documented by each engine). Lock `mutex_` first. The
  // base throws c10::Error: an engine opts in by overriding both.
  virtual c10::intrusive_ptr<c10::TensorImpl> get_state() const;
  virtual void set_state(const c10::TensorImpl& new_state);

  // Guards the engine's state; public so that ops can hold it across many
  // draws. See the class comment.
  std::mutex mutex_;

 protected:
  // A new engine with a copy of this one's state (not of its mutex); the
  // base throws c10::Error.
  virtual c10::intrusive_ptr<GeneratorImpl> clone_impl() const;

 private:
  const Device device_;
  const DispatchKeySet key_set_;
};

namespace detail {

[[noreturn]] C10_NOINLINE C10_COLD void reportGeneratorCastFailure(
    const GeneratorImpl& impl, const std::type_info& requested);
[[noreturn]] C10_NOINLINE C10_COLD void reportUndefinedGenerator(
    const char* where);

}  // namespace detail
}  // namespace c10

namespace at {

// at::Generator
//
// A shared handle on a c10::GeneratorImpl: copying it shares the engine (one
// atomic increment), it never copies state. A default-constructed Generator
// is undefined (holds nothing); only defined(), the comparisons and the
// unsafe* accessors work on it, everything else throws c10::Error.
//
// Thread safety: as std::shared_ptr for the handle itself; see
// c10::GeneratorImpl for the engine (lock mutex() around seeding and draws).
class Generator {
 public:
  Generator() = default;
  // Out of line on purpose: GCC's -Wmaybe-uninitialized misfires on inlined
  // copies of a disengaged std::optional<Generator> (every random op's
  // default argument) at -O2. A generator is copied once per op, not per
  // element, so the call costs nothing that matters.
  Generator(const Generator& other) noexcept;
  Generator(Generator&& other) noexcept;
  Generator& operator=(const Generator& other) noexcept;
  Generator& operator=(Generator&& other) noexcept;
  ~Generator();

  // Takes a reference on `impl`, which must not be null (an undefined
  // Generator is spelled Generator()).
  explicit Generator(c10::intrusive_ptr<c10::GeneratorImpl> impl);

  bool defined() const noexcept { return static_cast<bool>(impl_); }

  bool operator==(const Generator& rhs) const noexcept {
    return impl_ == rhs.impl_;
  }
  bool operator!=(const Generator& rhs) const noexcept {
    return impl_ != rhs.impl_;
  }

  // at::Generator::unsafeGetGeneratorImpl / unsafeReleaseGeneratorImpl /
  // getIntrusivePtr
  //
  // The engine, possibly null. unsafeReleaseGeneratorImpl() hands this
  // handle's reference to the caller (give it back with
  // intrusive_ptr::reclaim) and leaves the handle undefined.
  c10::GeneratorImpl* unsafeGetGeneratorImpl() const noexcept {
    return impl_.get();
  }
  c10::GeneratorImpl* unsafeReleaseGeneratorImpl() noexcept {
    return impl_.release();
  }
  const c10::intrusive_ptr<c10::GeneratorImpl>& getIntrusivePtr() const {
    return impl_;
  }

  // at::Generator::operator->
  //
  // The engine; throws c10::Error if the handle is undefined.
  c10::GeneratorImpl* operator->() const { return checked("operator->"); }

  // at::Generator::get<T>
  //
  // The engine as the concrete type T. Unlike PyTorch's unchecked cast,
  // throws c10::Error naming both types if the engine is not a T, and if the
  // handle is undefined.
  template <typename T>
  T* get() const {
    static_assert(std::is_base_of<c10::GeneratorImpl, T>::value,
                  "at::Generator::get<T>: T must derive from "
                  "c10::GeneratorImpl");
    c10::GeneratorImpl* impl = checked("get");
    T* result = dynamic_cast<T*>(impl);
    if (C10_UNLIKELY(result == nullptr)) {
      c10::detail::reportGeneratorCastFailure(*impl, typeid(T));
    }
    return result;
  }

  // at::Generator::set_current_seed / current_seed / seed / mutex
  //
  // Forward to the engine (see c10::GeneratorImpl); lock mutex() around the
  // seed calls.
  void set_current_seed(uint64_t seed) {
    checked("set_current_seed")->set_current_seed(seed);
  }
  uint64_t current_seed() const {
    return checked("current_seed")->current_seed();
  }
  uint64_t seed() { return checked("seed")->seed(); }
  std::mutex& mutex() const { return checked("mutex")->mutex_; }

  c10::Device device() const { return checked("device")->device(); }
  c10::DispatchKeySet key_set() const { return checked("key_set")->key_set(); }

  // at::Generator::clone
  //
  // A handle on a new engine in this one's state (see
  // c10::GeneratorImpl::clone); lock mutex() first.
  Generator clone() const;

  // at::Generator::get_state / set_state
  //
  // The engine's state as a Byte tensor, and restoring it (see
  // c10::GeneratorImpl::get_state). Lock mutex() first. Defined in aten
  // (aten/Generator.cc), where at::Tensor is complete; include
  // <ATen/ATen.h> to call them.
  at::Tensor get_state() const;
  void set_state(const at::Tensor& new_state);

 private:
  c10::GeneratorImpl* checked(const char* where) const {
    if (C10_UNLIKELY(!impl_)) c10::detail::reportUndefinedGenerator(where);
    return impl_.get();
  }

  c10::intrusive_ptr<c10::GeneratorImpl> impl_;
};

// at::make_generator<Impl>(args...)
//
// Creates an engine of type Impl from `args` and returns the first handle on
// it. Thread-safe.
template <class Impl, class... Args>
Generator make_generator(Args&&... args) {
  static_assert(std::is_base_of<c10::GeneratorImpl, Impl>::value,
                "at::make_generator<Impl>: Impl must derive from "
                "c10::GeneratorImpl");
  return Generator(c10::make_intrusive<Impl>(std::forward<Args>(args)...));
}

}  // namespace at
