// c10/core/Allocator.cc — Allocator helpers and the per-device registry.
#include "c10/core/Allocator.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace c10 {

void deleteNothing(void*) {}

namespace detail {
// Constant-initialized: allocations during static initialization read a
// valid word.
std::atomic<MemoryReporterFn> memory_reporter{nullptr};
}  // namespace detail

void SetMemoryReporter(MemoryReporterFn fn) {
  detail::memory_reporter.store(fn, std::memory_order_relaxed);
}

DataPtr Allocator::clone(const void* data, size_t n) {
  DataPtr fresh = allocate(n);
  if (n > 0) copy_data(fresh.mutable_get(), data, n);
  return fresh;
}

void Allocator::default_copy_data(void* dest, const void* src, size_t count) const {
  if (count > 0) std::memcpy(dest, src, count);
}

void* Allocator::raw_allocate(size_t n) {
  DataPtr dptr = allocate(n);
  TORCH_CHECK(dptr.get() == dptr.get_context(),
              "Allocator::raw_allocate: this allocator's DataPtrs carry a "
              "context separate from their data, so a bare pointer cannot "
              "free them. Use allocate() and keep the DataPtr.");
  return dptr.release_context();
}

void Allocator::raw_deallocate(void* ptr) {
  DeleterFnPtr deleter = raw_deleter();
  TORCH_CHECK(deleter != nullptr,
              "Allocator::raw_deallocate: this allocator has no raw_deleter(), "
              "so it cannot free bare pointers. Use allocate() and let the "
              "DataPtr free the memory.");
  if (ptr != nullptr) deleter(ptr);
}

namespace {

// Note [Allocator registry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// One slot per DeviceType (kNumDeviceTypes, from DeviceType.h, so a new
// device type gets a slot automatically). Writers serialize on the mutex
// (which also guards the priorities); readers only load the slot.
// The registry is a function-local static with a constexpr constructor and a
// trivial destructor: it is constant-initialized (no guard, no exit-time
// destruction), so SetAllocator may run from any library's static
// initializers regardless of order. A namespace-scope global would work too,
// but GCC's AddressSanitizer then reports a false init-order-fiasco when
// another file's initializer registers an allocator.
struct Registry {
  std::atomic<Allocator*> allocators[kNumDeviceTypes] = {};
  std::atomic<Allocator*> pinned[kNumDeviceTypes] = {};
  uint8_t priorities[kNumDeviceTypes] = {};
  std::mutex mutex;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

// The error paths are out of line so the lookup stays a few instructions.
[[noreturn]] C10_NOINLINE void fail_out_of_range(int index,
                                                 const char* where) {
  TORCH_CHECK(false, where, ": device type value ", index,
              " is out of range; expected a c10::DeviceType in [0, ",
              kNumDeviceTypes, ").");
  std::abort();  // unreachable: TORCH_CHECK(false) always throws
}

[[noreturn]] C10_NOINLINE void fail_missing(DeviceType t) {
  const std::string name = DeviceTypeName(t);
  TORCH_CHECK(false, "GetAllocator: no allocator is registered for device "
              "type ", name, ". Load the backend plugin for ", name,
              " before allocating on it.");
  std::abort();  // unreachable
}

int slot_of(DeviceType t, const char* where) {
  const int index = static_cast<int>(t);
  if (C10_UNLIKELY(index < 0 || index >= kNumDeviceTypes)) {
    fail_out_of_range(index, where);
  }
  return index;
}

}  // namespace

void SetAllocator(DeviceType t, Allocator* alloc, uint8_t priority) {
  const int slot = slot_of(t, "SetAllocator");
  Registry& reg = registry();
  std::lock_guard<std::mutex> guard(reg.mutex);
  if (priority < reg.priorities[slot]) return;
  reg.priorities[slot] = alloc != nullptr ? priority : 0;
  // Release: a thread that loads the new pointer in GetAllocator also sees
  // the allocator object fully constructed by whoever registered it.
  reg.allocators[slot].store(alloc, std::memory_order_release);
}

void SetPinnedMemoryAllocator(DeviceType accelerator, Allocator* alloc) {
  const int slot = slot_of(accelerator, "SetPinnedMemoryAllocator");
  TORCH_CHECK(accelerator != DeviceType::CPU, "SetPinnedMemoryAllocator: memory is pinned "
              "for copies to an accelerator; expected an accelerator's device type, got cpu.");
  TORCH_CHECK(alloc == nullptr || alloc->raw_deleter() != nullptr,
              "SetPinnedMemoryAllocator: the allocator for ", DeviceTypeName(accelerator),
              " has no raw_deleter(); is_pinned() recognises pinned storage by it.");
  registry().pinned[slot].store(alloc, std::memory_order_release);
}

Allocator* GetPinnedMemoryAllocator(DeviceType accelerator) {
  const int slot = slot_of(accelerator, "GetPinnedMemoryAllocator");
  return registry().pinned[slot].load(std::memory_order_acquire);
}

Allocator* GetAllocator(const DeviceType& t) {
  const int slot = slot_of(t, "GetAllocator");
  // Acquire pairs with the release store in SetAllocator.
  Allocator* alloc =
      registry().allocators[slot].load(std::memory_order_acquire);
  if (C10_UNLIKELY(alloc == nullptr)) fail_missing(t);
  return alloc;
}

namespace {
void delete_std_function_context(void* ctx) {
  delete static_cast<InefficientStdFunctionContext*>(ctx);
}
}  // namespace

DataPtr InefficientStdFunctionContext::makeDataPtr(
    void* ptr, std::function<void(void*)> deleter, Device device) {
  auto* ctx = new InefficientStdFunctionContext(ptr, std::move(deleter));
  return DataPtr(ptr, ctx, &delete_std_function_context, device);
}

}  // namespace c10
