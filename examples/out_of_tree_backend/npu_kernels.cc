// npu_kernels.cc — the npu's kernels: the ones every backend needs
// (empty.memory_format, empty_strided, copy_, resize_), native add, mul, mm,
// relu, sum and threshold_backward, the random samplers on the npu's own
// generator, and Ember's boxed CPU fallback (at::native::cpu_fallback) for
// every other op. Autograd is AutogradPrivateUse1's, with no code here.
//
// Each kernel computes on host views (npu_device.h): the memory is host
// memory. A real backend launches its own kernels in their place.
#include <optional>

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include "npu_device.h"

namespace {

using npu::host_view;

const c10::DispatchKeySet kNpuKeys(c10::DispatchKey::PrivateUse1);

void check_npu_options(const char* op, std::optional<c10::Device> device) {
  TORCH_CHECK(!device.has_value() || device->type() == c10::kPrivateUse1, op,
              ": this is the npu backend's kernel, but device ", *device, " was requested.");
}

// [doc:factories]
at::Tensor npu_empty(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                     std::optional<c10::Layout>, std::optional<c10::Device> device,
                     std::optional<bool>, std::optional<c10::MemoryFormat> format) {
  check_npu_options("empty", device);
  return at::Tensor(at::detail::empty_generic(size, npu::allocator(), kNpuKeys,
                                              c10::dtype_or_default(dtype), format));
}

at::Tensor npu_empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                             std::optional<c10::ScalarType> dtype,
                             std::optional<c10::Layout>, std::optional<c10::Device> device,
                             std::optional<bool>) {
  check_npu_options("empty_strided", device);
  return at::Tensor(at::detail::empty_strided_generic(size, stride, npu::allocator(),
                                                      kNpuKeys, c10::dtype_or_default(dtype)));
}
// [doc:end]

// A new npu tensor with a CPU result's values.
at::Tensor to_npu(const at::Tensor& cpu) {
  at::Tensor out = npu_empty(cpu.sizes(), cpu.scalar_type(), std::nullopt, std::nullopt,
                             std::nullopt, std::nullopt);
  host_view(out).copy_(cpu);
  return out;
}

// [doc:copy]
// copy_ to, from and within the device (all host memory).
at::Tensor& npu_copy_(at::Tensor& self, const at::Tensor& src, bool) {
  host_view(self).copy_(host_view(src));
  return self;
}
// [doc:end]

// [doc:resize]
// resize_: grows the storage (keeping its bytes) when the new shape needs
// more; out= ops and the fallback's written arguments resize through it.
at::Tensor& npu_resize_(at::Tensor& self, c10::IntArrayRef size,
                        std::optional<c10::MemoryFormat>) {
  const size_t needed = at::detail::computeStorageNbytesContiguous(size, self.itemsize()) +
                        static_cast<size_t>(self.storage_offset()) * self.itemsize();
  c10::StorageImpl* storage = self.unsafeGetTensorImpl()->storage().unsafeGetStorageImpl();
  if (storage->nbytes() < needed) {
    c10::DataPtr fresh = npu::allocator()->allocate(needed);
    if (storage->nbytes() > 0) {
      npu::allocator()->copy_data(fresh.get(), storage->data(), storage->nbytes());
    }
    storage->set_data_ptr_noswap(std::move(fresh));
    storage->set_nbytes(needed);
  }
  self.unsafeGetTensorImpl()->set_sizes_contiguous(size);
  return self;
}
// [doc:end]

// [doc:kernels]
at::Tensor npu_add(const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
  return to_npu(at::add(host_view(a), host_view(b), alpha));
}
at::Tensor npu_mul(const at::Tensor& a, const at::Tensor& b) {
  return to_npu(at::mul(host_view(a), host_view(b)));
}
at::Tensor npu_mm(const at::Tensor& a, const at::Tensor& b) {
  return to_npu(at::mm(host_view(a), host_view(b)));
}
at::Tensor npu_relu(const at::Tensor& a) { return to_npu(at::relu(host_view(a))); }
at::Tensor npu_sum(const at::Tensor& a, std::optional<c10::ScalarType> dtype) {
  return to_npu(at::sum(host_view(a), dtype));
}
at::Tensor npu_threshold_backward(const at::Tensor& grad, const at::Tensor& self,
                                  const at::Scalar& threshold) {
  return to_npu(at::threshold_backward(host_view(grad), host_view(self), threshold));
}
// [doc:end]

// [doc:random]
// The samplers draw from the npu's generator (given, or its default one):
// at::manual_seed seeds it, and randn, rand and bernoulli on the npu go
// through these. Random ops left to the fallback (native_dropout, randint,
// ...) draw from the CPU's generator.
at::Tensor& npu_normal_(at::Tensor& self, double mean, double std,
                        std::optional<at::Generator> gen) {
  host_view(self).normal_(mean, std, npu::host_engine(gen));
  return self;
}
at::Tensor& npu_uniform_(at::Tensor& self, double from, double to,
                         std::optional<at::Generator> gen) {
  host_view(self).uniform_(from, to, npu::host_engine(gen));
  return self;
}
at::Tensor& npu_bernoulli_(at::Tensor& self, double p, std::optional<at::Generator> gen) {
  host_view(self).bernoulli_(p, npu::host_engine(gen));
  return self;
}
// [doc:end]

}  // namespace

// [doc:registrations]
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", &npu_empty);
  m.impl("empty_strided", &npu_empty_strided);
  m.impl("copy_", &npu_copy_);
  m.impl("resize_", &npu_resize_);
  m.impl("add.Tensor", &npu_add);
  m.impl("mul.Tensor", &npu_mul);
  m.impl("mm", &npu_mm);
  m.impl("relu", &npu_relu);
  m.impl("sum", &npu_sum);
  m.impl("threshold_backward", &npu_threshold_backward);
  m.impl("normal_", &npu_normal_);
  m.impl("uniform_", &npu_uniform_);
  m.impl("bernoulli_.float", &npu_bernoulli_);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&at::native::cpu_fallback>());
}
// [doc:end]
