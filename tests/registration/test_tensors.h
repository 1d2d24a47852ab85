// Small tensors for registry tests: the registry sits below aten, so tests
// build TensorImpls directly.
#pragma once

#include <vector>

#include "c10/core/CPUAllocator.h"
#include "c10/core/TensorBase.h"

namespace ember_test {

inline at::TensorBase makeTensor(std::vector<int64_t> sizes,
                                 c10::DispatchKey backend = c10::DispatchKey::CPU) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), static_cast<size_t>(numel) * sizeof(float),
      c10::GetCPUAllocator(), /*resizable=*/true));
  // Tests pretend other backends' tensors live in CPU memory: move the
  // storage's device to match the key.
  const c10::DeviceType device =
      c10::backendComponentToDeviceType(c10::toBackendComponent(backend));
  storage.unsafeGetStorageImpl()->mutable_data_ptr().unsafe_set_device(c10::Device(device));
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(backend), c10::kFloat);
  impl->set_sizes_contiguous(sizes);
  return at::TensorBase(std::move(impl));
}

}  // namespace ember_test
