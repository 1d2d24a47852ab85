// backends/cpu/TensorIterator.h — the strided loop driver behind the CPU
// plugin's elementwise kernels.
//
// A TensorIterator takes output and input tensors, works out the broadcast
// shape and the dtype to compute in (PyTorch's type promotion), allocates or
// checks the outputs, and then walks every element, handing a kernel one
// innermost run of elements at a time, as PyTorch's 1-d loops do:
//
//   ember::cpu::TensorIterator iter(
//       ember::cpu::TensorIteratorConfig("add").add_output(out)
//           .add_input(a).add_input(b));
//   iter.for_each([](char** data, const int64_t* strides, int64_t n) {
//     // data[0] is the output, data[1..] the inputs; strides in bytes.
//     for (int64_t i = 0; i < n; ++i) {
//       *reinterpret_cast<float*>(data[0] + i * strides[0]) =
//           *reinterpret_cast<float*>(data[1] + i * strides[1]) +
//           *reinterpret_cast<float*>(data[2] + i * strides[2]);
//     }
//   });
//   at::Tensor result = iter.output();
//
// When all of a call's strides equal the element sizes, the run is
// contiguous and the kernel should use a plain indexed loop that the
// compiler vectorizes. Not for reductions: every output element depends on
// the input elements at the same position only.
//
// Thread safety: one iterator belongs to one call. for_each may run the loop
// on two OpenMP threads at once (See Note [Intra-op parallelism]), so the
// loop must not write shared state.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

#include "aten/Tensor.h"
#include "aten/TypePromotion.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

// ember::cpu::DimVector — int64_t values, inline up to kInline of them.
// Iterating a tensor of up to 8 dimensions allocates nothing.
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

// ember::cpu::TensorIteratorConfig
//
// What an iterator should do; builder-style. Outputs come before inputs.
// The tensors are borrowed: they must outlive the TensorIterator.
class TensorIteratorConfig {
 public:
  static constexpr size_t kMaxOperands = 4;

  // `op_name` prefixes every error ("add: shapes … cannot be broadcast");
  // a string literal.
  explicit TensorIteratorConfig(const char* op_name) : op_name_(op_name) {}

  // An undefined output is allocated (contiguous, the broadcast shape).
  TensorIteratorConfig& add_output(const at::Tensor& output) {
    TORCH_INTERNAL_ASSERT(num_inputs_ == 0 && num_outputs_ < kMaxOperands,
                          op_name_, ": outputs go first, at most ", kMaxOperands);
    tensors_[num_outputs_++] = &output;
    return *this;
  }
  TensorIteratorConfig& add_input(const at::Tensor& input) {
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

 private:
  friend class TensorIterator;

  const char* op_name_;
  const at::Tensor* tensors_[kMaxOperands] = {};
  size_t num_outputs_ = 0;
  size_t num_inputs_ = 0;
  bool promote_inputs_ = true;
  unsigned keep_dtype_mask_ = 0;  // bit i: input i keeps its dtype
  bool int_to_float_ = false;
  bool resize_outputs_ = true;
  bool check_mem_overlap_ = true;
  bool has_static_shape_ = false;
  c10::IntArrayRef static_shape_;
  std::optional<c10::ScalarType> static_dtype_;
};

// ember::cpu::TensorIterator
//
// Built in place from a config (it is neither copyable nor movable: operands
// may point into the iterator itself). Construction does every check and
// allocation; for_each runs the loop.
class TensorIterator {
 public:
  static constexpr size_t kMaxOperands = TensorIteratorConfig::kMaxOperands;

  // The loop: data pointers and byte strides of every operand (outputs
  // first) for a run of `n` elements along the innermost dimension.
  using LoopFn = void(void* ctx, char** data, const int64_t* strides, int64_t n);

  explicit TensorIterator(const TensorIteratorConfig& config);
  ~TensorIterator();
  TensorIterator(const TensorIterator&) = delete;
  TensorIterator& operator=(const TensorIterator&) = delete;

  // The dtype inputs are computed in (after promotion). With promotion off,
  // the first input's dtype (the output's, for an iterator with no inputs).
  c10::ScalarType common_dtype() const { return common_dtype_; }
  c10::ScalarType dtype(size_t operand) const { return dtypes_[operand]; }
  size_t num_operands() const { return num_operands_; }
  size_t num_outputs() const { return num_outputs_; }
  int64_t numel() const { return numel_; }
  // The broadcast shape.
  c10::IntArrayRef shape() const { return shape_.ref(); }
  // The dimensions left after coalescing (at least 1).
  size_t ndim() const { return sizes_.size(); }
  // Whether every operand is contiguous over the whole iteration (then one
  // call of the loop covers all elements when it runs on one thread).
  bool is_contiguous() const;

  // Output `i` as the caller sees it: the given tensor, or the one that was
  // allocated (not the temporary the loop may have written to).
  const at::Tensor& output(size_t i = 0) const { return *results_[i]; }

  // ember::cpu::TensorIterator::for_each
  //
  // Calls `loop(char** data, const int64_t* strides, int64_t n)` until every
  // element has been visited once, then writes temporaries back to their
  // outputs. Call it exactly once. No call when there are no elements. The
  // loop must not throw: it may run inside an OpenMP region.
  template <typename Loop>
  void for_each(Loop&& loop) {
    auto* fn = +[](void* ctx, char** data, const int64_t* strides, int64_t n) {
      (*static_cast<std::remove_reference_t<Loop>*>(ctx))(data, strides, n);
    };
    run(fn, const_cast<void*>(static_cast<const void*>(&loop)));
  }

 private:
  void check_and_collect(const TensorIteratorConfig& config);
  void compute_shape(const TensorIteratorConfig& config);
  void compute_types(const TensorIteratorConfig& config);
  void prepare_outputs(const TensorIteratorConfig& config);
  void prepare_inputs();
  bool all_contiguous_full_shape();
  void compute_strides();
  void reorder_dimensions();
  void coalesce_dimensions();
  void run(LoopFn* fn, void* ctx);
  void serial_for_each(LoopFn* fn, void* ctx, int64_t begin, int64_t end) const;

  const char* op_name_;
  size_t num_operands_ = 0;
  size_t num_outputs_ = 0;
  int64_t numel_ = 0;
  bool ran_ = false;
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
  const at::Tensor* tensors_[kMaxOperands] = {};
  // results_[i]: output i as the caller sees it; when it differs from
  // tensors_[i], the loop's result is copied into it at the end.
  const at::Tensor* results_[kMaxOperands] = {};
  at::Tensor owned_[kMaxOperands];
  char* data_[kMaxOperands] = {};
  DimVector shape_;
  DimVector sizes_;  // per iteration dimension, innermost first
  DimVector strides_[kMaxOperands];  // bytes, same order as sizes_
  // Converted one-element inputs live here instead of in a new tensor.
  alignas(16) char scalar_buffers_[kMaxOperands][16];
};

}  // namespace ember::cpu
