// backends/cuda/IndexSupport.h — what the CUDA index kernels' host code
// shares (shape_ops.cc, gather_scatter_ops.cc): the device word that
// records the first bad index (Note [CUDA index checks] in kernels/launch.h),
// the lookup of the bad index for the message, and the device check of an
// index tensor. Internal to the plugin.
#pragma once

#include <cstdint>

#include "aten/Functions.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAIterator.h"

namespace ember {
namespace cuda {

// The device word of Note [CUDA index checks].
class BadPosition {
 public:
  explicit BadPosition(c10::Device device)
      : word_(empty_cuda({1}, c10::kLong, device, "index check")) {
    word_.fill_(-1);  // all ones
  }
  unsigned long long* ptr() { return static_cast<unsigned long long*>(word_.data_ptr()); }
  // The first bad position, or -1; waits for the kernel.
  int64_t read() const { return word_.item<int64_t>(); }

 private:
  at::Tensor word_;
};

inline int64_t index_at(const at::Tensor& index, int64_t position) {
  return index.reshape({-1}).select(0, position).item<int64_t>();
}

// The message every CUDA op gives for a tensor on another device (PyTorch's
// words); `what` says which tensor and how to fix it.
template <typename... What>
void check_same_device(const char* op, c10::Device expected, c10::Device found,
                       const What&... what) {
  TORCH_CHECK(found == expected, op, ": Expected all tensors to be on the same device, but "
              "found at least two devices, ", expected, " and ", found, what...);
}

inline void check_index_device(const at::Tensor& self, const at::Tensor& index, const char* op) {
  check_same_device(op, self.device(), index.device(), " (the index). Move the index to ",
                    self.device(), " first.");
}

}  // namespace cuda
}  // namespace ember
