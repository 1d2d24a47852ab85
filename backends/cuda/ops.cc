// backends/cuda/ops.cc — the CUDA plugin's support code (empty_cuda, the GPU
// TensorIterator's layout) and its basic kernels: empty, empty_strided,
// copy_ (CPU<->CUDA and on the device, any pair of the supported dtypes),
// fill_, _local_scalar_dense (item()). The pointwise ops are in
// pointwise_ops.cc, the reductions in reduce_ops.cc, mm/addmm in blas.cc, softmax, nll_loss, threshold_backward and mean in nn_ops.cc.
// Every other op on a CUDA tensor fails with the dispatcher's "no kernel"
// error.
#include <algorithm>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>

#include "aten/EmptyTensor.h"
#include "aten/Functions.h"
#include "aten/Resize.h"
#include "aten/Tensor.h"
#include "aten/WrapDimUtils.h"
#include "backends/cuda/CUDACachingAllocator.h"
#include "backends/cuda/CUDAGuardImpl.h"
#include "backends/cuda/CUDAIterator.h"
#include "backends/cuda/CUDARuntime.h"
#include "c10/core/Allocator.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/StorageImpl.h"
#include "c10/cuda/CUDAException.h"
#include "registration/library.h"

namespace ember {
namespace cuda {

// ---- support ----------------------------------------------------------------

at::Tensor empty_cuda(c10::IntArrayRef sizes, c10::ScalarType dtype,
                      c10::Device device, const char* op) {
  requireDevice(op);
  c10::OptionalDeviceGuard guard;
  if (device.index() >= 0) guard.set_device(device);
  uint64_t bytes = c10::elementSize(dtype);
  for (int64_t s : sizes) {
    TORCH_CHECK(s >= 0, op, ": sizes must be non-negative, but got ", sizes, ".");
    TORCH_CHECK(!__builtin_mul_overflow(bytes, static_cast<uint64_t>(s), &bytes),
                op, ": a tensor of sizes ", sizes,
                " needs more bytes than a 64-bit size holds.");
  }
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), static_cast<size_t>(bytes),
      c10::GetAllocator(c10::kCUDA), /*resizable=*/true));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CUDA), dtype));
  if (!sizes.empty()) t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}

kernels::Dtype kernel_dtype(c10::ScalarType type, const char* op, KernelDtypes which) {
  switch (type) {
    case c10::ScalarType::Float: return kernels::Dtype::kFloat;
    case c10::ScalarType::Double: return kernels::Dtype::kDouble;
    case c10::ScalarType::Long: return kernels::Dtype::kLong;
    case c10::ScalarType::Int: return kernels::Dtype::kInt;
    case c10::ScalarType::Bool: return kernels::Dtype::kBool;
    default: break;
  }
  if (which == KernelDtypes::kAll) {
    switch (type) {
      case c10::ScalarType::Short: return kernels::Dtype::kShort;
      case c10::ScalarType::Char: return kernels::Dtype::kChar;
      case c10::ScalarType::Byte: return kernels::Dtype::kByte;
      case c10::ScalarType::Half: return kernels::Dtype::kHalf;
      case c10::ScalarType::BFloat16: return kernels::Dtype::kBFloat16;
      default: break;
    }
  }
  TORCH_CHECK_NOT_IMPLEMENTED(
      false, op, ": dtype ", type, " is not supported by this op on CUDA yet (it has ",
      which == KernelDtypes::kAll
          ? "Bool, Byte, Char, Short, Int, Long, Half, BFloat16, Float and Double"
          : "Float, Double, Long, Int and Bool",
      "). Convert with .to() first, or compute on the CPU.");
  return kernels::Dtype::kFloat;
}

c10::ScalarType kernel_carrier(c10::ScalarType type) {
  if (c10::isReducedFloatingType(type)) return c10::kFloat;
  if (type == c10::kShort || type == c10::kChar || type == c10::kByte) return c10::kLong;
  return type;
}

uint64_t scalar_bits(const c10::Scalar& value, c10::ScalarType dtype) {
  at::Tensor one = at::empty({}, at::TensorOptions().dtype(dtype));
  one.fill_(value);
  uint64_t bits = 0;
  std::memcpy(&bits, one.data_ptr(), one.itemsize());
  return bits;
}

void* current_stream(c10::Device device) {
  const auto& rt = c10::cuda::impl::cudaRuntime();
  return rt.nativeStream(rt.getStream(device));
}

namespace {
at::Tensor allocate_for_iterator(c10::IntArrayRef sizes, c10::ScalarType dtype,
                                 c10::Device device) {
  return empty_cuda(sizes, dtype, device);
}
}  // namespace

namespace {
// Every CUDA iteration takes 0-dim CPU inputs by value (Note [CPU scalars on
// a device]).
at::TensorIteratorConfig with_cpu_scalars(const at::TensorIteratorConfig& config) {
  at::TensorIteratorConfig copy = config;
  copy.allow_cpu_scalars(true);
  return copy;
}
}  // namespace

CUDAIterator::CUDAIterator(const at::TensorIteratorConfig& config)
    : at::TensorIteratorBase(with_cpu_scalars(config), c10::kCUDA, &allocate_for_iterator) {}

kernels::Iteration CUDAIterator::layout() const {
  kernels::Iteration it;
  TORCH_CHECK(ndim() <= static_cast<size_t>(kernels::kMaxDims), op_name(),
              ": the CUDA kernels handle up to ", kernels::kMaxDims,
              " dimensions after coalescing, but this call has ", ndim(),
              ". Make the operands contiguous or reshape them.");
  TORCH_INTERNAL_ASSERT(num_operands() <= static_cast<size_t>(kernels::kMaxOperands));
  it.ndim = static_cast<int>(ndim());
  it.numel = numel();
  bool contiguous = ndim() <= 1;
  for (size_t d = 0; d < ndim(); ++d) it.sizes[d] = sizes()[d];
  for (size_t k = 0; k < num_operands(); ++k) {
    if (is_cpu_scalar(k)) {  // its value goes with the launch
      TORCH_INTERNAL_ASSERT(c10::elementSize(dtype(k)) <= sizeof(it.scalars[k]));
      it.scalar_mask |= 1u << k;
      std::memcpy(&it.scalars[k], data(k), c10::elementSize(dtype(k)));
      continue;
    }
    it.data[k] = data(k);
    for (size_t d = 0; d < ndim(); ++d) it.strides[k][d] = strides(k)[d];
    if (ndim() == 1 &&
        strides(k)[0] != static_cast<int64_t>(c10::elementSize(dtype(k)))) {
      contiguous = false;
    }
  }
  it.contiguous = contiguous;
  return it;
}

void CUDAIterator::check_launch(const char* op, const std::string& status) {
  TORCH_CHECK(status.empty(), op, ": CUDA kernel failed: ", status, ".");
}

namespace {

// ---- factories ---------------------------------------------------------------

void check_factory_options(const char* op, std::optional<c10::Layout> layout,
                           std::optional<c10::Device> device,
                           std::optional<bool> pin_memory) {
  TORCH_CHECK(!layout.has_value() || *layout == c10::Layout::Strided, op,
              ": the CUDA backend makes strided tensors only. Pass "
              "layout=Strided or leave it unset.");
  TORCH_CHECK(!device.has_value() || device->is_cuda(), op,
              ": this is the CUDA backend's kernel, but device ", *device,
              " was requested. Pass a CUDA device.");
  TORCH_CHECK(!pin_memory.value_or(false), op,
              ": pin_memory applies to CPU tensors; a CUDA tensor cannot be "
              "pinned. Pass pin_memory=false.");
}

at::Tensor empty(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                 std::optional<c10::Layout> layout,
                 std::optional<c10::Device> device,
                 std::optional<bool> pin_memory,
                 std::optional<c10::MemoryFormat> memory_format) {
  check_factory_options("empty", layout, device, pin_memory);
  const c10::ScalarType st = dtype.value_or(c10::kFloat);
  const c10::Device d = device.value_or(c10::Device(c10::kCUDA, -1));
  const c10::MemoryFormat format = memory_format.value_or(c10::MemoryFormat::Contiguous);
  if (format == c10::MemoryFormat::Contiguous) return empty_cuda(size, st, d);
  // ChannelsLast (NHWC strides) and the core's refusal of the other formats,
  // as every backend's (at::detail::empty_generic).
  requireDevice("empty");
  c10::OptionalDeviceGuard guard;
  if (d.index() >= 0) guard.set_device(d);
  return at::Tensor(at::detail::empty_generic(size, c10::GetAllocator(c10::kCUDA),
                                              c10::DispatchKeySet(c10::DispatchKey::CUDA), st,
                                              format));
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                         std::optional<c10::ScalarType> dtype,
                         std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device,
                         std::optional<bool> pin_memory) {
  check_factory_options("empty_strided", layout, device, pin_memory);
  TORCH_CHECK(size.size() == stride.size(), "empty_strided: got ", size.size(),
              " sizes ", size, " but ", stride.size(), " strides ", stride,
              "; pass one stride per dimension.");
  int64_t extent = 1;  // elements the strides reach
  bool empty_tensor = false;
  for (size_t d = 0; d < size.size(); ++d) {
    TORCH_CHECK(stride[d] >= 0, "empty_strided: strides must be non-negative, "
                "but got ", stride, ".");
    if (size[d] == 0) empty_tensor = true;
    extent += (size[d] - 1) * stride[d];
  }
  at::Tensor t = empty_cuda({empty_tensor ? 0 : extent}, dtype.value_or(c10::kFloat),
                            device.value_or(c10::Device(c10::kCUDA, -1)),
                            "empty_strided");
  t.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride, 0);
  return t;
}

// ---- copy_ and fill_ -----------------------------------------------------------

// Note [Asynchronous copies]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A host <-> device copy is queued on the current stream. It returns at once
// (PyTorch's non_blocking=true) only when the host side is pinned memory of
// the plugin's host allocator: recordPinnedUse then marks the block used by
// that stream, so freeing the tensor before the copy ran does not hand the
// block out again early (CachingHostAllocator.h). Pageable host memory (or
// a temporary made for a dtype change or broadcast) may be freed or read as
// soon as copy_ returns, so that copy is waited for, as without
// non_blocking. As in PyTorch, reading a non_blocking copy's destination on
// the host needs a synchronize() (or an event) first.
void memcpy_host(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                 c10::Device device, bool non_blocking) {
  const void* host_ptr = kind == cudaMemcpyHostToDevice ? src : dst;
  c10::DeviceGuard guard(device);
  const auto& rt = c10::cuda::impl::cudaRuntime();
  const c10::Stream current = rt.getStream(device);
  auto stream = static_cast<cudaStream_t>(rt.nativeStream(current));
  C10_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  if (non_blocking && recordPinnedUse(host_ptr, current)) return;
  C10_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void copy_on_device(at::Tensor& self, const at::Tensor& src);

// Note [Copies between CUDA devices]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The source is made dense in the destination's dtype and shape on its own
// device (one kernel, skipped when it is so already), moved by
// cudaMemcpyPeerAsync into a dense tensor on the destination's device, and
// copied from there into the destination's layout (skipped when the
// destination is dense). The peer copy runs on the destination's current
// stream after the source device's current stream has done what was queued
// before (an event), and the source's stream waits for the copy in turn, so
// neither device's caching allocator hands the memory out again early, as
// PyTorch's copy between devices.
void copy_between_devices(at::Tensor& self, const at::Tensor& src) {
  const c10::Device from = src.device(), to = self.device();
  at::Tensor dense = src;
  if (!(src.is_contiguous() && src.scalar_type() == self.scalar_type() &&
        src.sizes() == self.sizes())) {
    c10::DeviceGuard guard(from);
    dense = empty_cuda(self.sizes(), self.scalar_type(), from, "copy_");
    copy_on_device(dense, src);
  }
  at::Tensor dst =
      self.is_contiguous() ? self : empty_cuda(self.sizes(), self.scalar_type(), to, "copy_");
  auto src_stream = static_cast<cudaStream_t>(current_stream(from));
  auto dst_stream = static_cast<cudaStream_t>(current_stream(to));
  // Each event is recorded and waited for on its own device.
  auto order = [](c10::Device device, cudaStream_t before, cudaStream_t after) {
    c10::DeviceGuard guard(device);
    cudaEvent_t event = nullptr;
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(event, before);
    const cudaError_t waited =
        recorded == cudaSuccess ? cudaStreamWaitEvent(after, event, 0) : recorded;
    C10_CUDA_CHECK(cudaEventDestroy(event));  // freed once it completes
    C10_CUDA_CHECK(waited);
  };
  order(from, src_stream, dst_stream);
  {
    c10::DeviceGuard guard(to);
    C10_CUDA_CHECK(cudaMemcpyPeerAsync(dst.data_ptr(), to.index(), dense.data_ptr(),
                                       from.index(), dst.nbytes(), dst_stream));
  }
  order(to, dst_stream, src_stream);
  if (!self.is_contiguous()) {
    c10::DeviceGuard guard(to);
    copy_on_device(self, dst);
  }
}

void copy_on_device(at::Tensor& self, const at::Tensor& src) {
  if (self.device() != src.device()) {
    copy_between_devices(self, src);
    return;
  }
  const kernels::Dtype dst_dtype = kernel_dtype(self.scalar_type(), "copy_", KernelDtypes::kAll);
  const kernels::Dtype src_dtype = kernel_dtype(src.scalar_type(), "copy_", KernelDtypes::kAll);
  CUDAIterator iter(at::TensorIteratorConfig("copy_")
                        .add_output(self)
                        .add_input(src)
                        .promote_inputs_to_common_dtype(false)
                        .resize_outputs(false)
                        .declare_static_shape(self.sizes()));
  iter.run("copy_", [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_copy(it, dst_dtype, src_dtype, stream);
  });
}

at::Tensor& copy_(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  if (self.numel() == 0) return self;
  if (self.is_cuda() && src.is_cuda()) {
    copy_on_device(self, src);
    return self;
  }
  TORCH_CHECK(self.is_cpu() || src.is_cpu(), "copy_: expected CPU and CUDA "
              "tensors, got ", src.device(), " -> ", self.device(), ".");
  if (self.is_cuda()) {
    // CPU -> CUDA: convert and broadcast on the CPU, one memcpy, then a
    // device copy if the destination is not contiguous.
    at::Tensor host = src.to(self.scalar_type()).expand(self.sizes()).contiguous();
    at::Tensor dst = self.is_contiguous()
                         ? self
                         : empty_cuda(self.sizes(), self.scalar_type(), self.device());
    memcpy_host(dst.data_ptr(), host.data_ptr(), host.nbytes(), cudaMemcpyHostToDevice,
                self.device(), non_blocking);
    if (!self.is_contiguous()) copy_on_device(self, dst);
    return self;
  }
  // CUDA -> CPU: make the source contiguous on the device, one memcpy into
  // a CPU tensor of its dtype, then the CPU's copy_ converts and broadcasts.
  // Into a contiguous destination of the same dtype and shape the memcpy goes
  // straight there (asynchronous when it is pinned: Note [Asynchronous
  // copies]).
  at::Tensor dense = src.contiguous();
  if (self.is_contiguous() && self.scalar_type() == dense.scalar_type() &&
      self.sizes() == dense.sizes()) {
    memcpy_host(self.data_ptr(), dense.data_ptr(), dense.nbytes(), cudaMemcpyDeviceToHost,
                src.device(), non_blocking);
    return self;
  }
  at::Tensor host = at::empty(dense.sizes(), at::TensorOptions().dtype(dense.scalar_type()));
  memcpy_host(host.data_ptr(), dense.data_ptr(), dense.nbytes(), cudaMemcpyDeviceToHost,
              src.device(), /*non_blocking=*/false);
  self.copy_(host);
  return self;
}

at::Tensor& fill_(at::Tensor& self, const c10::Scalar& value) {
  if (self.numel() == 0) return self;
  const uint64_t bits = scalar_bits(value, self.scalar_type());
  CUDAIterator iter(at::TensorIteratorConfig("fill_")
                        .add_output(self)
                        .resize_outputs(false)
                        .check_mem_overlap(false));
  iter.run("fill_", [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_fill(it, static_cast<int>(self.itemsize()), bits, stream);
  });
  return self;
}

c10::Scalar local_scalar_dense(const at::Tensor& self) {
  return self.to(c10::kCPU).item();
}

}  // namespace

namespace {

// resize_: the core's checks and shape logic; a larger storage comes from
// the CUDA caching allocator and the old bytes are copied on the device's
// current stream (so later kernels on that stream see them).
at::Tensor& resize_(at::Tensor& self, c10::IntArrayRef size,
                    std::optional<c10::MemoryFormat> memory_format) {
  const c10::Device device = self.device();
  requireDevice("resize_");
  c10::DeviceGuard guard(device);
  return at::native::resize_storage_and_shape(
      self, size, memory_format, c10::GetAllocator(c10::kCUDA),
      [device](void* dst, const void* src, size_t n) {
        C10_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice,
                                       static_cast<cudaStream_t>(current_stream(device))));
      });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("resize_", TORCH_FN(resize_));
  m.impl("empty.memory_format", TORCH_FN(empty));
  m.impl("empty_strided", TORCH_FN(empty_strided));
  m.impl("copy_", TORCH_FN(copy_));
  m.impl("fill_.Scalar", TORCH_FN(fill_));
  m.impl("_local_scalar_dense", TORCH_FN(local_scalar_dense));
}

}  // namespace cuda
}  // namespace ember
