// c10/core/Allocator.h — owning data pointers, allocators and their registry.
//
// A `c10::DataPtr` is the unique owner of one block of device memory: the
// data pointer itself, an opaque context, the function that frees the
// context, and the device the memory lives on. A `c10::Allocator` produces
// DataPtrs for one device type; backends register theirs with SetAllocator
// and everything else finds them with GetAllocator.
//
//   c10::Allocator* alloc = c10::GetAllocator(c10::kCPU);
//   c10::DataPtr block = alloc->allocate(1024);   // freed when `block` dies
//   float* data = static_cast<float*>(block.get());
//
// This is the memory layer only: for typed, shared, resizable buffers use
// c10::Storage (c10/core/Storage.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"
#include "c10/util/Exception.h"

namespace c10 {

// c10::DeleterFnPtr
//
// Frees a DataPtr's context. Never called with nullptr by DataPtr.
using DeleterFnPtr = void (*)(void*);

// c10::deleteNothing
//
// A deleter that does nothing, for DataPtrs that borrow memory.
void deleteNothing(void*);

// c10::DataPtr
//
// Move-only owner of a block of memory. It owns the *context*, not the data:
// on destruction (or clear()) it calls `deleter(context)` if the context is
// non-null. For simple allocators the context is the data pointer itself;
// others point it at a bookkeeping object that knows how to free the data.
// A DataPtr with a null context owns nothing (a null deleter is treated as
// "nothing to free"). Not thread-safe: one owner at a time, like
// std::unique_ptr.
class DataPtr {
 public:
  // An empty pointer on the CPU.
  DataPtr() noexcept : DataPtr(nullptr, Device(DeviceType::CPU)) {}
  // A non-owning pointer to `data` (no context, nothing is freed).
  DataPtr(void* data, Device device) noexcept
      : data_(data), ctx_(nullptr), deleter_(nullptr), device_(device) {}
  // Owns `ctx`, which `deleter` frees; `data` is what users see.
  DataPtr(void* data, void* ctx, DeleterFnPtr deleter, Device device) noexcept
      : data_(data), ctx_(ctx), deleter_(deleter), device_(device) {}

  DataPtr(DataPtr&& rhs) noexcept
      : data_(std::exchange(rhs.data_, nullptr)),
        ctx_(std::exchange(rhs.ctx_, nullptr)),
        deleter_(rhs.deleter_),
        device_(rhs.device_) {}
  DataPtr& operator=(DataPtr&& rhs) noexcept {
    if (this != &rhs) {
      free_context();
      data_ = std::exchange(rhs.data_, nullptr);
      ctx_ = std::exchange(rhs.ctx_, nullptr);
      deleter_ = rhs.deleter_;
      device_ = rhs.device_;
    }
    return *this;
  }
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  ~DataPtr() { free_context(); }

  // Frees the context (if any) and leaves data and context null. The deleter
  // and device are kept.
  void clear() noexcept {
    free_context();
    data_ = nullptr;
    ctx_ = nullptr;
  }

  void* get() const noexcept { return data_; }
  void* mutable_get() noexcept { return data_; }
  void* operator->() const noexcept { return data_; }
  void* get_context() const noexcept { return ctx_; }
  // Gives up ownership of the context and returns it; the data pointer stays
  // readable but nothing is freed any more.
  void* release_context() noexcept { return std::exchange(ctx_, nullptr); }
  // The context as a std::unique_ptr that will free it.
  std::unique_ptr<void, DeleterFnPtr> move_context() noexcept {
    return std::unique_ptr<void, DeleterFnPtr>(
        release_context(), deleter_ ? deleter_ : &deleteNothing);
  }
  // The context cast to T if it was made with `expected_deleter`, else null.
  template <typename T>
  T* cast_context(DeleterFnPtr expected_deleter) const noexcept {
    return deleter_ == expected_deleter ? static_cast<T*>(ctx_) : nullptr;
  }
  DeleterFnPtr get_deleter() const noexcept { return deleter_; }

  // c10::DataPtr::compare_exchange_deleter
  //
  // Replaces the deleter with `new_deleter` if it currently is
  // `expected_deleter`; returns whether it did. Lets a wrapper take over the
  // freeing of a context whose layout it knows.
  bool compare_exchange_deleter(DeleterFnPtr expected_deleter,
                                DeleterFnPtr new_deleter) noexcept {
    if (deleter_ != expected_deleter) return false;
    deleter_ = new_deleter;
    return true;
  }

  Device device() const noexcept { return device_; }
  // Only for code that knows the memory is reachable from `device` too.
  void unsafe_set_device(Device device) noexcept { device_ = device; }

  // True if there is data or a context.
  explicit operator bool() const noexcept {
    return data_ != nullptr || ctx_ != nullptr;
  }

 private:
  void free_context() noexcept {
    if (ctx_ != nullptr && deleter_ != nullptr) deleter_(ctx_);
  }

  void* data_;
  void* ctx_;
  DeleterFnPtr deleter_;
  Device device_;
};

inline bool operator==(const DataPtr& dp, std::nullptr_t) noexcept {
  return !dp;
}
inline bool operator==(std::nullptr_t, const DataPtr& dp) noexcept {
  return !dp;
}
inline bool operator!=(const DataPtr& dp, std::nullptr_t) noexcept {
  return static_cast<bool>(dp);
}
inline bool operator!=(std::nullptr_t, const DataPtr& dp) noexcept {
  return static_cast<bool>(dp);
}

// c10::Allocator
//
// Hands out memory for one device type. Implementations must be
// thread-safe: allocate() is called concurrently from any thread, and a
// DataPtr may be destroyed on a thread other than the one that allocated it.
// Registered allocators are borrowed by the registry and must outlive every
// use (in practice: static storage, never destroyed).
//
// The interface is PyTorch's (c10/core/Allocator.h): allocate() is not
// const (an allocator may keep statistics or caches without `mutable`), and
// copy_data() copies between two blocks of this allocator's memory, which
// clone() and code that duplicates storages without knowing the device use.
struct Allocator {
  virtual ~Allocator() = default;

  // Memory for `n` bytes. `n == 0` may return a DataPtr with null data; its
  // device must still be the allocator's, since a tensor's device is its
  // storage's DataPtr's.
  virtual DataPtr allocate(size_t n) = 0;

  // c10::Allocator::copy_data
  //
  // Copies `count` bytes from `src` to `dest`, both from this allocator (a
  // device allocator uses its device's copy). Host-memory allocators
  // implement it with default_copy_data.
  virtual void copy_data(void* dest, const void* src, size_t count) const = 0;

  // c10::Allocator::clone
  //
  // A new block of `n` bytes from this allocator holding a copy of the `n`
  // bytes at `data` (which this allocator allocated).
  DataPtr clone(const void* data, size_t n);

  // If non-null, every DataPtr from this allocator has data == context and
  // this function frees it, which enables raw_allocate/raw_deallocate.
  virtual DeleterFnPtr raw_deleter() const { return nullptr; }

  // c10::Allocator::raw_allocate
  //
  // A bare pointer the caller must give back to raw_deallocate(). Only for
  // allocators with a raw_deleter().
  void* raw_allocate(size_t n);
  // c10::Allocator::raw_deallocate
  //
  // Frees a pointer from raw_allocate(). Throws c10::Error if the allocator
  // has no raw_deleter().
  void raw_deallocate(void* ptr);

 protected:
  // memcpy, for allocators of host-addressable memory; count 0 copies
  // nothing, whatever the pointers.
  void default_copy_data(void* dest, const void* src, size_t count) const;
};

// c10::SetAllocator
//
// Makes `alloc` the allocator for device type `t` unless one with a higher
// priority is already registered (an equal priority replaces). Passing
// nullptr, subject to the same rule, unregisters and resets the slot's
// priority to 0. Thread-safe; may race with GetAllocator. `alloc` is
// borrowed and must outlive all uses.
void SetAllocator(DeviceType t, Allocator* alloc, uint8_t priority = 0);

// c10::GetAllocator
//
// The allocator registered for `t`. Throws c10::Error if there is none.
// Thread-safe and lock-free (one atomic load).
Allocator* GetAllocator(const DeviceType& t);

// c10::SetPinnedMemoryAllocator
//
// Makes `alloc` the allocator of page-locked host memory for copies to and
// from `accelerator` (the CUDA plugin registers its caching host allocator
// for kCUDA): what Tensor::pin_memory() allocates from, and what
// Tensor::is_pinned() recognises (a storage whose DataPtr has the
// allocator's raw_deleter(), which it must have). Its DataPtrs are on the
// CPU. nullptr unregisters. Thread-safe; `alloc` must outlive all uses.
void SetPinnedMemoryAllocator(DeviceType accelerator, Allocator* alloc);

// c10::GetPinnedMemoryAllocator
//
// The allocator registered for `accelerator`, or nullptr. Thread-safe.
Allocator* GetPinnedMemoryAllocator(DeviceType accelerator);

// c10::AllocatorRegisterer<t>
//
// Registers an allocator at static-initialization time; see
// REGISTER_ALLOCATOR.
template <DeviceType t>
struct AllocatorRegisterer {
  explicit AllocatorRegisterer(Allocator* alloc, uint8_t priority = 0) {
    SetAllocator(t, alloc, priority);
  }
};

// REGISTER_ALLOCATOR(device_type, allocator_ptr)
//
// At namespace scope in a .cc file: registers `allocator_ptr` for
// `device_type` with priority 0 when the library is loaded.
#define REGISTER_ALLOCATOR(t, f)                                 \
  namespace {                                                    \
  static ::c10::AllocatorRegisterer<t> g_allocator_registerer(f); \
  }

// c10::reportMemoryUsageToProfiler
//
// Allocators call this on every allocation (`alloc_size` > 0) and free
// (`alloc_size` < 0) of `ptr` on `device`, so that a profiler recording
// memory (torch::profiler::ProfilerOptions::profile_memory) sees it. With no
// reporter installed it costs one relaxed atomic load. Thread-safe.
using MemoryReporterFn = void (*)(void* ptr, int64_t alloc_size, Device device);
namespace detail {
extern std::atomic<MemoryReporterFn> memory_reporter;
}  // namespace detail
inline void reportMemoryUsageToProfiler(void* ptr, int64_t alloc_size, Device device) {
  const MemoryReporterFn fn = detail::memory_reporter.load(std::memory_order_relaxed);
  if (C10_UNLIKELY(fn != nullptr)) fn(ptr, alloc_size, device);
}
// c10::SetMemoryReporter
//
// Installs the function reportMemoryUsageToProfiler calls (nullptr: none).
// The profiler installs one while it records memory; a call that loaded the
// old function just before a change may still run it once, so a reporter
// must stay callable for the life of the process.
void SetMemoryReporter(MemoryReporterFn fn);

// c10::InefficientStdFunctionContext
//
// A DataPtr context that frees memory with an arbitrary std::function, for
// wrapping external buffers (`from_blob` with a deleter). Costs one heap
// allocation per DataPtr, hence the name.
struct InefficientStdFunctionContext {
  InefficientStdFunctionContext(void* ptr, std::function<void(void*)> deleter)
      : ptr_(ptr), deleter_(std::move(deleter)) {}
  ~InefficientStdFunctionContext() {
    if (deleter_) deleter_(ptr_);
  }
  InefficientStdFunctionContext(const InefficientStdFunctionContext&) = delete;
  InefficientStdFunctionContext& operator=(
      const InefficientStdFunctionContext&) = delete;

  // A DataPtr for `ptr` on `device` that calls `deleter(ptr)` when freed.
  static DataPtr makeDataPtr(void* ptr, std::function<void(void*)> deleter,
                             Device device);

 private:
  void* ptr_;
  std::function<void(void*)> deleter_;
};

}  // namespace c10
