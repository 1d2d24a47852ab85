// backends/cpu/kernels.h — the CPU plugin's kernels, as plain C++ functions.
//
// Each function is registered for DispatchKey::CPU under the aten operator
// named in its comment (see kernels_*.cc); its C++ type is exactly the one
// the dispatcher checks against the schema. Programs call them through
// at::add, Tensor::add_, … ; tests of the plugin may call them directly:
//
//   at::Tensor c = ember::cpu::add(a, b, /*alpha=*/1);
//
// Every kernel takes CPU tensors of any strides (broadcast and
// non-contiguous included) and follows PyTorch's type promotion. Errors
// throw c10::Error. Kernels do not bump version counters (the
// ADInplaceOrView layer does, as in PyTorch).
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/core/Device.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"

namespace ember::cpu {

// ---- arithmetic (kernels_pointwise.cc) -------------------------------------
// add: self + alpha * other. Bool tensors: logical or (with alpha true).
at::Tensor add(const at::Tensor& self, const at::Tensor& other,
               const c10::Scalar& alpha);                        // add.Tensor
at::Tensor& add_out(const at::Tensor& self, const at::Tensor& other,
                    const c10::Scalar& alpha, at::Tensor& out);  // add.out
at::Tensor& add_(at::Tensor& self, const at::Tensor& other,
                 const c10::Scalar& alpha);                      // add_.Tensor

// sub: self - alpha * other. Bool tensors are refused, as in PyTorch.
at::Tensor sub(const at::Tensor& self, const at::Tensor& other,
               const c10::Scalar& alpha);                        // sub.Tensor
at::Tensor& sub_out(const at::Tensor& self, const at::Tensor& other,
                    const c10::Scalar& alpha, at::Tensor& out);  // sub.out
at::Tensor& sub_(at::Tensor& self, const at::Tensor& other,
                 const c10::Scalar& alpha);                      // sub_.Tensor

// mul: self * other. Bool tensors: logical and.
at::Tensor mul(const at::Tensor& self, const at::Tensor& other);  // mul.Tensor
at::Tensor& mul_out(const at::Tensor& self, const at::Tensor& other,
                    at::Tensor& out);                             // mul.out
at::Tensor& mul_(at::Tensor& self, const at::Tensor& other);      // mul_.Tensor

// div: true division; integral and bool inputs give Float.
at::Tensor div(const at::Tensor& self, const at::Tensor& other);  // div.Tensor
at::Tensor& div_out(const at::Tensor& self, const at::Tensor& other,
                    at::Tensor& out);                             // div.out
at::Tensor& div_(at::Tensor& self, const at::Tensor& other);      // div_.Tensor

// relu; not for Bool. The other unary ops and the comparisons are declared
// in pointwise.h.
at::Tensor relu(const at::Tensor& self);

// ---- fill and copy (kernels_copy.cc) ---------------------------------------
// Every element of self becomes `value` (checked conversion: a value the
// dtype cannot hold throws). Allowed on expanded tensors.
at::Tensor& fill_(at::Tensor& self, const c10::Scalar& value);  // fill_.Scalar
// self = src broadcast to self's shape, converted to self's dtype. src may
// alias or overlap self. non_blocking has no effect on the CPU.
at::Tensor& copy_(at::Tensor& self, const at::Tensor& src,
                  bool non_blocking);                            // copy_

// ---- reductions (kernels_reduce.cc) ------------------------------------------
// `dim` lists are wrapped (negative dims count from the end) and must not
// repeat a dim; none or an empty list reduces every dim. keepdim leaves the
// reduced dims in the result with size 1.
//
// sum: integral and bool inputs give Long unless `dtype` is given; the input
// is converted to `dtype` before summing. An empty sum is 0.
at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype);  // sum
at::Tensor sum_dim(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                   bool keepdim,
                   std::optional<c10::ScalarType> dtype);  // sum.dim_IntList
// mean: the input (or `dtype`) must be floating. An empty mean is NaN.
at::Tensor mean(const at::Tensor& self, std::optional<c10::ScalarType> dtype);  // mean
at::Tensor mean_dim(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                    bool keepdim,
                    std::optional<c10::ScalarType> dtype);  // mean.dim
// amax/amin: the input's dtype; NaN if any reduced element is NaN. Reduced
// dims must have elements.
at::Tensor amax(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim);  // amax
at::Tensor amin(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim);  // amin
// max.dim/min.dim: values and Long indices along `dim` (the first position
// of the extreme value, or of the first NaN).
std::tuple<at::Tensor, at::Tensor> max_dim(const at::Tensor& self, int64_t dim,
                                           bool keepdim);  // max.dim
std::tuple<at::Tensor, at::Tensor> min_dim(const at::Tensor& self, int64_t dim,
                                           bool keepdim);  // min.dim
// argmax/argmin: the indices of max.dim/min.dim; without `dim`, the position
// in the flattened tensor (keepdim then gives all dims size 1).
at::Tensor argmax(const at::Tensor& self, std::optional<int64_t> dim,
                  bool keepdim);  // argmax
at::Tensor argmin(const at::Tensor& self, std::optional<int64_t> dim,
                  bool keepdim);  // argmin

// ---- factories (kernels_factory.cc) -----------------------------------------
// dtype defaults to Float; layout must be Strided, device the CPU,
// pin_memory false; memory_format Contiguous (default) or ChannelsLast (4-d).
at::Tensor empty(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                 std::optional<c10::Layout> layout,
                 std::optional<c10::Device> device,
                 std::optional<bool> pin_memory,
                 std::optional<c10::MemoryFormat> memory_format);  // empty.memory_format
at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                         std::optional<c10::ScalarType> dtype,
                         std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device,
                         std::optional<bool> pin_memory);          // empty_strided

}  // namespace ember::cpu
