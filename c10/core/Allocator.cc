// c10/core/Allocator.cc — Allocator helpers and the per-device registry.
#include "c10/core/Allocator.h"

#include <mutex>
#include <string>

namespace c10 {

void deleteNothing(void*) {}

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
// device type gets a slot automatically). The arrays and the mutex are
// constant-initialized, so SetAllocator may run from any library's static
// initializers regardless of initialization order. Writers serialize on the mutex (which also guards
// the priorities); readers only load the slot.
std::atomic<Allocator*> g_allocators[kNumDeviceTypes];
uint8_t g_priorities[kNumDeviceTypes];
std::mutex g_registry_mutex;

int slot_of(DeviceType t, const char* where) {
  const int index = static_cast<int>(t);
  TORCH_CHECK(index >= 0 && index < kNumDeviceTypes, where,
              ": device type value ", index, " is out of range; expected a "
              "c10::DeviceType in [0, ", kNumDeviceTypes, ").");
  return index;
}

}  // namespace

void SetAllocator(DeviceType t, Allocator* alloc, uint8_t priority) {
  const int slot = slot_of(t, "SetAllocator");
  std::lock_guard<std::mutex> guard(g_registry_mutex);
  if (priority < g_priorities[slot]) return;
  g_priorities[slot] = alloc != nullptr ? priority : 0;
  // Release: a thread that loads the new pointer in GetAllocator also sees
  // the allocator object fully constructed by whoever registered it.
  g_allocators[slot].store(alloc, std::memory_order_release);
}

Allocator* GetAllocator(const DeviceType& t) {
  const int slot = slot_of(t, "GetAllocator");
  // Acquire pairs with the release store in SetAllocator.
  Allocator* alloc = g_allocators[slot].load(std::memory_order_acquire);
  if (C10_UNLIKELY(alloc == nullptr)) {
    const std::string name = DeviceTypeName(t);
    TORCH_CHECK(false, "GetAllocator: no allocator is registered for device "
                "type ", name, ". Load the backend plugin for ", name,
                " before allocating on it.");
  }
  return alloc;
}

namespace {
void delete_std_function_context(void* ctx) {
  delete static_cast<InefficientStdFunctionContext*>(ctx);
}
}  // namespace

DataPtr InefficientStdFunctionContext::makeDataPtr(
    void* ptr, std::function<void(void*)> deleter, Device device) {
  return DataPtr(ptr, new InefficientStdFunctionContext(ptr, std::move(deleter)),
                 &delete_std_function_context, device);
}

}  // namespace c10
