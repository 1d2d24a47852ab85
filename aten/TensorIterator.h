// aten/TensorIterator.h — the device-agnostic half of an elementwise kernel:
// which shape it iterates, which dtype it computes in, which outputs it
// allocates or resizes, and how the operands' memory is laid out for the
// loop. A backend derives its iterator from at::TensorIteratorBase and adds
// only the loop driver (ember::cpu::TensorIterator runs the loop serially or
// on OpenMP threads; a GPU backend would launch a grid):
//
//   class MyIterator : public at::TensorIteratorBase {
//    public:
//     explicit MyIterator(const at::TensorIteratorConfig& config)
//         : at::TensorIteratorBase(config, c10::DeviceType::PrivateUse1) {}
//     template <typename Loop> void for_each(Loop&& loop) {
//       begin_run();
//       ... call loop over data(k), strides(k), sizes() ...
//       finish_run();   // copies temporaries into the caller's outputs
//     }
//   };
//
//   at::Tensor out;  // undefined: allocated with the broadcast shape
//   MyIterator iter(at::TensorIteratorConfig("add")
//                       .add_output(out).add_input(a).add_input(b));
//
// Construction does everything but the loop, as PyTorch's build():
// broadcasting (Note [Broadcast shape]), type promotion (at::result_type,
// Note [Type promotion]), output allocation with the backend's
// empty.memory_format kernel (a redispatch with the operands' backend keys),
// out= resizing with at::native::resize_output (PyTorch's
// rules: a non-empty output of another shape is resized with a warning),
// can_cast checks, the memory-overlap checks (Note [Overlapping operands]),
// then reordering and coalescing of the dimensions (Note [Iteration
// layout]). Temporaries it needs (a converted input, an output computed in
// another dtype) are made and copied through the dispatcher (copy_), so
// nothing here reads or writes an operand's elements, with one exception:
// a one-element input on the CPU that needs another dtype is converted into
// a buffer inside the iterator (cast_scalar), when the loop runs on the CPU.
//
// Thread safety: one iterator belongs to one call; construct and run it on
// one thread. Its loop driver may hand disjoint ranges to several threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "aten/Tensor.h"
#include "aten/TypePromotion.h"
#include "c10/core/Device.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace at {

// at::DimVector — int64_t values, inline up to kInline of them. Iterating a
// tensor of up to 8 dimensions allocates nothing.
class DimVector {
 public:
  static constexpr size_t kInline = 8;

  DimVector() : data_(inline_) {}
  DimVector(const DimVector&) = delete;  // data_ may point into the object
  DimVector& operator=(const DimVector&) = delete;

  size_t size() const { return size_; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  c10::IntArrayRef ref() const { return c10::IntArrayRef(data_, size_); }
  // Sets the size, keeping the first min(old, new) values; new ones are
  // uninitialized.
  void resize(size_t n) {
    if (n > capacity_) grow(n);
    size_ = n;
  }
  void assign(c10::IntArrayRef values) {
    resize(values.size());
    std::copy(values.begin(), values.end(), data_);
  }

 private:
  void grow(size_t n);

  int64_t* data_;  // inline_ or heap_
  size_t size_ = 0;
  size_t capacity_ = kInline;
  std::unique_ptr<int64_t[]> heap_;
  int64_t inline_[kInline];  // only [0, size_) is ever read
};

// at::cast_scalar
//
// Converts one element of dtype `src_type` at `src` to `dst_type` at `dst`
// (both in host memory), as copy_ converts: values are kept where the target
// holds them, floating to integral truncates toward zero, out-of-range
// integers wrap, anything nonzero is true.
void cast_scalar(void* dst, c10::ScalarType dst_type, const void* src,
                 c10::ScalarType src_type);

// at::TensorIteratorConfig
//
// What an iterator should do; builder-style. Outputs come before inputs.
// The tensors are borrowed: they must outlive the iterator (See Note
// [Borrowed operands]).
class TensorIteratorConfig {
 public:
  static constexpr size_t kMaxOperands = 4;

  // `op_name` prefixes every error ("add: shapes … cannot be broadcast");
  // a string literal.
  explicit TensorIteratorConfig(const char* op_name) : op_name_(op_name) {}

  // An undefined output is allocated (contiguous, the broadcast shape).
  TensorIteratorConfig& add_output(const Tensor& output) {
    TORCH_INTERNAL_ASSERT(num_inputs_ == 0 && num_outputs_ < kMaxOperands,
                          op_name_, ": outputs go first, at most ", kMaxOperands);
    tensors_[num_outputs_++] = &output;
    return *this;
  }
  TensorIteratorConfig& add_input(const Tensor& input) {
    TORCH_INTERNAL_ASSERT(num_outputs_ + num_inputs_ < kMaxOperands, op_name_,
                          ": at most ", kMaxOperands, " operands");
    tensors_[num_outputs_ + num_inputs_++] = &input;
    return *this;
  }

  // Inputs are converted to the common dtype (default true). When false,
  // the iterator computes no common dtype and each operand keeps its own
  // (copy_ converts in its loop).
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool value) {
    promote_inputs_ = value;
    return *this;
  }
  // Input `index` (0 for the first input) keeps its own dtype and takes no
  // part in computing the common dtype: where's Bool condition.
  TensorIteratorConfig& keep_input_dtype(size_t index) {
    TORCH_INTERNAL_ASSERT(index < kMaxOperands, op_name_, ": no input ", index);
    keep_dtype_mask_ |= 1u << index;
    return *this;
  }
  // An integral or bool common dtype becomes Float (div, exp, …).
  TensorIteratorConfig& promote_integer_inputs_to_float(bool value) {
    int_to_float_ = value;
    return *this;
  }
  // The outputs' dtype, whatever the inputs' (comparisons: Bool).
  TensorIteratorConfig& declare_static_dtype(c10::ScalarType dtype) {
    static_dtype_ = dtype;
    return *this;
  }
  // The iteration shape; inputs must broadcast to it and outputs must have
  // it (copy_: the destination's shape).
  TensorIteratorConfig& declare_static_shape(c10::IntArrayRef shape) {
    static_shape_ = shape;
    has_static_shape_ = true;
    return *this;
  }
  // Whether an output of another shape is resized as resize_output does
  // (default true; never for an output that is also an input).
  TensorIteratorConfig& resize_outputs(bool value) {
    resize_outputs_ = value;
    return *this;
  }
  // Whether an output with several elements at one address is refused
  // (default true; fill_ allows it).
  TensorIteratorConfig& check_mem_overlap(bool value) {
    check_mem_overlap_ = value;
    return *this;
  }
  // Whether a 0-dim CPU input may join an iteration on another device
  // (default false): PyTorch lets `cuda_tensor * cpu_scalar_tensor` and the
  // wrapped numbers of Scalar overloads into a GPU kernel. Such an input is
  // converted to its compute dtype into a host buffer of the iterator:
  // is_cpu_scalar(k) says so, and data(k) is then a host pointer whose value
  // the backend passes to its kernel (See Note [CPU scalars on a device]).
  TensorIteratorConfig& allow_cpu_scalars(bool value) {
    allow_cpu_scalars_ = value;
    return *this;
  }

 private:
  friend class TensorIteratorBase;

  const char* op_name_;
  const Tensor* tensors_[kMaxOperands] = {};
  size_t num_outputs_ = 0;
  size_t num_inputs_ = 0;
  bool promote_inputs_ = true;
  unsigned keep_dtype_mask_ = 0;  // bit i: input i keeps its dtype
  bool int_to_float_ = false;
  bool resize_outputs_ = true;
  bool check_mem_overlap_ = true;
  bool allow_cpu_scalars_ = false;
  bool has_static_shape_ = false;
  c10::IntArrayRef static_shape_;
  std::optional<c10::ScalarType> static_dtype_;
};

// at::TensorIteratorBase
//
// Built in place from a config by a backend's iterator (it is neither
// copyable nor movable: operands may point into the iterator itself).
// Construction does every check and allocation; the derived class runs the
// loop over data(k) and strides(k) for the dimensions sizes(), between
// begin_run() and finish_run().
class TensorIteratorBase {
 public:
  static constexpr size_t kMaxOperands = TensorIteratorConfig::kMaxOperands;

  TensorIteratorBase(const TensorIteratorBase&) = delete;
  TensorIteratorBase& operator=(const TensorIteratorBase&) = delete;

  // The dtype inputs are computed in (after promotion). With promotion off,
  // the first input's dtype (the output's, for an iterator with no inputs).
  c10::ScalarType common_dtype() const { return common_dtype_; }
  c10::ScalarType dtype(size_t operand) const { return dtypes_[operand]; }
  size_t num_operands() const { return num_operands_; }
  size_t num_outputs() const { return num_outputs_; }
  int64_t numel() const { return numel_; }
  // The device every operand is on.
  c10::Device device() const { return device_; }
  // The broadcast shape.
  c10::IntArrayRef shape() const { return shape_.ref(); }
  // The dimensions left after coalescing (at least 1).
  size_t ndim() const { return sizes_.size(); }
  // Whether every operand is contiguous over the whole iteration (then one
  // call of the loop covers all elements when it runs on one thread).
  bool is_contiguous() const;

  // Output `i` as the caller sees it: the given tensor, or the one that was
  // allocated (not the temporary the loop may have written to).
  const Tensor& output(size_t i = 0) const { return *results_[i]; }

  // What the loop driver walks. Dimensions are innermost first; sizes()[0]
  // is the innermost. data(k) is operand k's first element (a converted
  // copy or a scalar buffer when it needed one); strides(k)[d] the byte step
  // of operand k along dimension d (0 along broadcast ones).
  c10::IntArrayRef sizes() const { return sizes_.ref(); }
  char* data(size_t k) const { return data_[k]; }
  const int64_t* strides(size_t k) const { return strides_[k].data(); }
  // Whether operand k is a 0-dim CPU input of an iteration on another
  // device (TensorIteratorConfig::allow_cpu_scalars): data(k) is then a host
  // buffer holding its value in dtype(k), and its strides are not used.
  bool is_cpu_scalar(size_t k) const { return ((cpu_scalar_mask_ >> k) & 1u) != 0; }

 protected:
  // A new contiguous tensor of `sizes` and `dtype` on `device`, for outputs
  // and temporaries.
  using AllocateFn = Tensor (*)(c10::IntArrayRef sizes, c10::ScalarType dtype,
                                c10::Device device);

  // Builds the iteration; every operand must be on a device of type
  // `device_type`, the one the derived class's loop runs on. Outputs and
  // temporaries come from `allocate` when given (a backend's own allocation,
  // which saves a dispatch per allocated tensor on small ops), else from the
  // backend's empty kernel through the dispatcher.
  TensorIteratorBase(const TensorIteratorConfig& config, c10::DeviceType device_type,
                     AllocateFn allocate = nullptr);
  ~TensorIteratorBase();

  const char* op_name() const { return op_name_; }

  // Call once before the loop (refuses a second run), and finish_run() once
  // after it: it copies the outputs computed in a temporary (another dtype,
  // or an output overlapping an input) into the caller's outputs.
  void begin_run() {
    TORCH_INTERNAL_ASSERT(!ran_, op_name_, ": the iterator ran twice");
    ran_ = true;
  }
  void finish_run() {
    if (has_temporary_outputs_) copy_temporary_outputs();
  }

 private:
  void check_and_collect(const TensorIteratorConfig& config, c10::DeviceType device_type);
  void compute_shape(const TensorIteratorConfig& config);
  void compute_types(const TensorIteratorConfig& config);
  void prepare_outputs(const TensorIteratorConfig& config);
  void prepare_inputs();
  bool all_contiguous_full_shape();
  void compute_strides();
  void reorder_dimensions();
  void coalesce_dimensions();
  void copy_temporary_outputs();

  const char* op_name_;
  size_t num_operands_ = 0;
  size_t num_outputs_ = 0;
  int64_t numel_ = 0;
  bool ran_ = false;
  bool has_temporary_outputs_ = false;
  unsigned cpu_scalar_mask_ = 0;  // bit k: operand k is a CPU scalar
  c10::Device device_{c10::DeviceType::CPU};
  // The operands' keys below autograd: where temporaries are allocated and
  // copied (a redispatch straight to the backend's kernels).
  c10::DispatchKeySet backend_keys_;
  AllocateFn allocate_fn_ = nullptr;
  c10::ScalarType common_dtype_ = c10::ScalarType::Undefined;
  c10::ScalarType dtypes_[kMaxOperands] = {};
  // Note [Borrowed operands]
  // ~~~~~~~~~~~~~~~~~~~~~~~~
  // The caller's tensors outlive the iterator, so it points at them instead
  // of holding references: a reference count is two atomic operations per
  // tensor, a fair share of a one-element add. Only what the iterator makes
  // (an allocated output, a temporary output of the compute dtype, a
  // converted input) is owned, in owned_.
  // tensors_[k]: the tensor the loop reads or writes for operand k.
  const Tensor* tensors_[kMaxOperands] = {};
  // results_[i]: output i as the caller sees it; when it differs from
  // tensors_[i], the loop's result is copied into it at the end.
  const Tensor* results_[kMaxOperands] = {};
  Tensor owned_[kMaxOperands];
  char* data_[kMaxOperands] = {};
  DimVector shape_;
  DimVector sizes_;  // per iteration dimension, innermost first
  DimVector strides_[kMaxOperands];  // bytes, same order as sizes_
  // Converted one-element inputs live here instead of in a new tensor.
  alignas(16) char scalar_buffers_[kMaxOperands][16];
};

}  // namespace at
