#include "aten/TensorIterator.h"

#include <type_traits>
#include <utility>

#include "aten/Functions.h"
#include "aten/Resize.h"
#include "c10/util/Exception.h"

namespace at {

// ---- DimVector --------------------------------------------------------------

void DimVector::grow(size_t n) {
  std::unique_ptr<int64_t[]> fresh(new int64_t[n]);
  std::copy_n(data_, size_, fresh.get());
  heap_ = std::move(fresh);
  data_ = heap_.get();
  capacity_ = n;
}

// ---- cast_scalar --------------------------------------------------------------

namespace {

// One value from one element type to another, as copy_ converts. Half and
// BFloat16 go through float; bool is "nonzero".
template <typename To, typename From>
To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, c10::Half> ||
                       std::is_same_v<From, c10::BFloat16>) {
    return convert_value<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, c10::Half> ||
                       std::is_same_v<To, c10::BFloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && !std::is_same_v<From, bool> &&
                       std::is_integral_v<From>) {
    // Integers wrap: through the unsigned type of the target's width.
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename To>
To read_as(const void* src, c10::ScalarType src_type) {
  switch (src_type) {
#define EMBER_READ_AS_(cpp, name) \
  case c10::ScalarType::name:     \
    return convert_value<To>(*static_cast<const cpp*>(src));
    C10_FORALL_SCALAR_TYPES(EMBER_READ_AS_)
#undef EMBER_READ_AS_
    default:
      break;
  }
  TORCH_INTERNAL_ASSERT(false, "cast_scalar: no element type ", src_type);
}

}  // namespace

void cast_scalar(void* dst, c10::ScalarType dst_type, const void* src,
                 c10::ScalarType src_type) {
  switch (dst_type) {
#define EMBER_WRITE_AS_(cpp, name)                             \
  case c10::ScalarType::name:                                  \
    *static_cast<cpp*>(dst) = read_as<cpp>(src, src_type);     \
    return;
    C10_FORALL_SCALAR_TYPES(EMBER_WRITE_AS_)
#undef EMBER_WRITE_AS_
    default:
      break;
  }
  TORCH_INTERNAL_ASSERT(false, "cast_scalar: no element type ", dst_type);
}

// ---- construction -----------------------------------------------------------

namespace {

// Note [Overlapping operands]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Two checks, as PyTorch's. An output with elements that share an address
// (a dimension of size > 1 with stride 0: an expanded tensor) is refused,
// since the loop would write one location several times. Other internal
// overlaps are too costly to find and are not looked for. An input that
// shares bytes with an output, but not as the same elements in the same
// order, is copied first (the loop would otherwise read elements it has
// already overwritten); an input that is exactly the output (a += b) is
// read in place, each element before it is written.
bool has_internal_overlap(const Tensor& t) {
  if (t.is_contiguous()) return false;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  }
  return false;
}

// The bytes [first, last] that `t`'s elements occupy; t.numel() > 0. Only
// addresses are computed, never dereferenced.
std::pair<const char*, const char*> byte_range(const Tensor& t) {
  int64_t last = 0;
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  const char* begin = static_cast<const char*>(t.data_ptr());
  return {begin, begin + (last + 1) * static_cast<int64_t>(t.itemsize()) - 1};
}

// Whether writing `out` element by element may change what `in` still has
// to read. See Note [Overlapping operands].
bool needs_copy_before_write(const Tensor& in, const Tensor& out) {
  const c10::TensorImpl* a = in.unsafeGetTensorImpl();
  const c10::TensorImpl* b = out.unsafeGetTensorImpl();
  if (a->storage().unsafeGetStorageImpl() != b->storage().unsafeGetStorageImpl() ||
      a->numel() == 0 || b->numel() == 0) {
    return false;
  }
  if (in.data_ptr() == out.data_ptr() && in.dtype() == out.dtype() &&
      in.sizes() == out.sizes() && in.strides() == out.strides()) {
    return false;  // the same elements: each is read before it is written
  }
  const auto read = byte_range(in);
  const auto written = byte_range(out);
  return read.first <= written.second && written.first <= read.second;
}

// A new contiguous tensor on `device`: the backend's empty kernel, reached
// by a redispatch with the operands' backend keys (no BackendSelect hop,
// no autograd: temporaries never need a graph).
Tensor allocate(c10::DispatchKeySet backend_keys, c10::IntArrayRef sizes,
                c10::ScalarType dtype, c10::Device device) {
  return at::_ops::empty_memory_format::redispatch(backend_keys, sizes, dtype, std::nullopt,
                                                    device, std::nullopt, std::nullopt);
}

// dst.copy_(src) with the backend's copy_ kernel; `dst`'s handle is not
// changed, only its elements.
void copy_elements(c10::DispatchKeySet backend_keys, const Tensor& dst, const Tensor& src) {
  at::_ops::copy_::redispatch(backend_keys, const_cast<Tensor&>(dst), src, false);
}

const char* device_type_name(c10::DeviceType type) {
  return type == c10::DeviceType::CPU ? "the CPU" : nullptr;
}

}  // namespace

TensorIteratorBase::TensorIteratorBase(const TensorIteratorConfig& config,
                                       c10::DeviceType device_type, AllocateFn allocate)
    : op_name_(config.op_name_), allocate_fn_(allocate) {
  check_and_collect(config, device_type);
  compute_shape(config);
  compute_types(config);
  prepare_outputs(config);
  prepare_inputs();
  if (!all_contiguous_full_shape()) {
    compute_strides();
    reorder_dimensions();
    coalesce_dimensions();
  }
}

TensorIteratorBase::~TensorIteratorBase() = default;

// The common case of same-shape contiguous operands is one run of elements;
// deciding that directly saves most of the layout work on small tensors.
bool TensorIteratorBase::all_contiguous_full_shape() {
  for (size_t k = 0; k < num_operands_; ++k) {
    if (data_[k] != nullptr) return false;  // a scalar buffer
    const c10::TensorImpl* t = tensors_[k]->unsafeGetTensorImpl();
    if (!t->is_contiguous() || t->sizes() != shape_.ref()) return false;
  }
  numel_ = 1;
  for (size_t d = 0; d < shape_.size(); ++d) numel_ *= shape_[d];
  sizes_.resize(1);
  sizes_[0] = numel_;
  for (size_t k = 0; k < num_operands_; ++k) {
    const c10::TensorImpl* t = tensors_[k]->unsafeGetTensorImpl();
    data_[k] = static_cast<char*>(t->data());
    strides_[k].resize(1);
    strides_[k][0] = static_cast<int64_t>(t->itemsize());
  }
  return true;
}

void TensorIteratorBase::check_and_collect(const TensorIteratorConfig& config,
                                           c10::DeviceType device_type) {
  num_outputs_ = config.num_outputs_;
  num_operands_ = config.num_outputs_ + config.num_inputs_;
  TORCH_INTERNAL_ASSERT(num_outputs_ > 0, op_name_, ": no output");
  bool have_device = false;
  for (size_t k = 0; k < num_operands_; ++k) {
    const Tensor* t = config.tensors_[k];
    tensors_[k] = t;
    const bool is_output = k < num_outputs_;
    if (is_output) results_[k] = t;
    if (!t->defined()) {
      TORCH_CHECK(is_output, op_name_, ": input ", k - num_outputs_,
                  " is an undefined tensor; pass a tensor that holds data.");
      continue;
    }
    const c10::Device device = t->device();
    if (!is_output && config.allow_cpu_scalars_ && device_type != c10::DeviceType::CPU &&
        device.is_cpu() && t->dim() == 0) {
      cpu_scalar_mask_ |= 1u << k;  // Note [CPU scalars on a device]
      continue;
    }
    if (device.type() != device_type) {
      const char* name = device_type_name(device_type);
      if (name != nullptr) {
        TORCH_CHECK(false, op_name_, ": expected all tensors on ", name, ", but ",
                    is_output ? "output " : "input ", is_output ? k : k - num_outputs_,
                    " is on ", device, ". Move it to the CPU first (tensor.cpu()).");
      }
      TORCH_CHECK(false, op_name_, ": expected all tensors on a ",
                  c10::Device(device_type), " device, but ",
                  is_output ? "output " : "input ", is_output ? k : k - num_outputs_,
                  " is on ", device, ". Move it to that device first (tensor.to()).");
    }
    if (!have_device) {
      device_ = device;
      backend_keys_ = t->unsafeGetTensorImpl()->key_set() -
                      c10::autograd_dispatch_keyset_with_ADInplaceOrView;
      have_device = true;
    }
    TORCH_CHECK(device == device_, op_name_, ": expected all tensors on one device, "
                "but ", is_output ? "output " : "input ", is_output ? k : k - num_outputs_,
                " is on ", device, " and an earlier operand on ", device_,
                ". Move them to one device first (tensor.to()).");
  }
  TORCH_CHECK(have_device || cpu_scalar_mask_ == 0, op_name_, ": expected a tensor on a ",
              c10::Device(device_type), " device among the operands, but all are 0-dim "
              "CPU tensors. Move one of them to that device first (tensor.to()).");
}

// Note [Broadcast shape]
// ~~~~~~~~~~~~~~~~~~~~~~
// As PyTorch: shapes are aligned at their last dimension; each pair of
// sizes must be equal or one of them 1, and the result takes the other.
// Outputs do not take part (an output of another shape is resized, See
// prepare_outputs); with a static shape, inputs must broadcast to it.
void TensorIteratorBase::compute_shape(const TensorIteratorConfig& config) {
  if (config.has_static_shape_) {
    shape_.assign(config.static_shape_);
    for (size_t k = num_outputs_; k < num_operands_; ++k) {
      const c10::IntArrayRef in = tensors_[k]->sizes();
      bool ok = in.size() <= shape_.size();
      for (size_t i = 0; ok && i < in.size(); ++i) {
        const int64_t want = shape_[shape_.size() - 1 - i];
        const int64_t have = in[in.size() - 1 - i];
        ok = have == want || have == 1;
      }
      TORCH_CHECK(ok, op_name_, ": an input of shape ", in,
                  " cannot be broadcast to the shape ", shape_.ref(),
                  "; the trailing dimensions must match or be 1.");
    }
    return;
  }
  if (num_operands_ == num_outputs_) {  // no inputs (fill_): the output's shape
    TORCH_INTERNAL_ASSERT(results_[0]->defined(), op_name_, ": no shape");
    shape_.assign(results_[0]->sizes());
    return;
  }
  shape_.assign(tensors_[num_outputs_]->sizes());
  for (size_t k = num_outputs_ + 1; k < num_operands_; ++k) {
    const c10::IntArrayRef other = tensors_[k]->sizes();
    if (other == shape_.ref()) continue;
    const size_t nd = std::max(shape_.size(), other.size());
    DimVector merged;
    merged.resize(nd);
    for (size_t i = 0; i < nd; ++i) {
      const int64_t a = i < shape_.size() ? shape_[shape_.size() - 1 - i] : 1;
      const int64_t b = i < other.size() ? other[other.size() - 1 - i] : 1;
      TORCH_CHECK(a == b || a == 1 || b == 1, op_name_, ": shapes ", shape_.ref(),
                  " and ", other, " cannot be broadcast together; the trailing "
                  "dimensions must match or be 1.");
      merged[nd - 1 - i] = a == 1 ? b : a;
    }
    shape_.assign(merged.ref());
  }
}

void TensorIteratorBase::compute_types(const TensorIteratorConfig& config) {
  const bool has_inputs = num_operands_ > num_outputs_;
  auto keeps_dtype = [&](size_t k) {
    return ((config.keep_dtype_mask_ >> (k - num_outputs_)) & 1u) != 0;
  };
  if (config.promote_inputs_ && has_inputs && config.keep_dtype_mask_ != 0) {
    const Tensor* promoted[kMaxOperands];
    size_t count = 0;
    for (size_t k = num_outputs_; k < num_operands_; ++k) {
      if (!keeps_dtype(k)) promoted[count++] = tensors_[k];
    }
    common_dtype_ = at::result_type(c10::ArrayRef<const Tensor*>(promoted, count));
    if (config.int_to_float_ && c10::isIntegralType(common_dtype_, true)) {
      common_dtype_ = c10::kFloat;
    }
  } else if (config.promote_inputs_ && has_inputs) {
    common_dtype_ = at::result_type(c10::ArrayRef<const Tensor*>(
        tensors_ + num_outputs_, num_operands_ - num_outputs_));
    if (config.int_to_float_ && c10::isIntegralType(common_dtype_, true)) {
      common_dtype_ = c10::kFloat;
    }
  } else if (has_inputs) {
    common_dtype_ = tensors_[num_outputs_]->scalar_type();
  } else {
    TORCH_INTERNAL_ASSERT(results_[0]->defined(), op_name_, ": no dtype");
    common_dtype_ = results_[0]->scalar_type();
  }
  for (size_t k = num_outputs_; k < num_operands_; ++k) {
    dtypes_[k] = config.promote_inputs_ && !keeps_dtype(k) ? common_dtype_
                                                           : tensors_[k]->scalar_type();
  }
  for (size_t i = 0; i < num_outputs_; ++i) {
    if (config.static_dtype_) {
      dtypes_[i] = *config.static_dtype_;
    } else if (config.promote_inputs_ || !results_[i]->defined()) {
      dtypes_[i] = common_dtype_;
    } else {
      dtypes_[i] = results_[i]->scalar_type();
    }
  }
}

void TensorIteratorBase::prepare_outputs(const TensorIteratorConfig& config) {
  for (size_t i = 0; i < num_outputs_; ++i) {
    const Tensor& out = *results_[i];
    if (!out.defined()) {
      owned_[i] = allocate_fn_ ? allocate_fn_(shape_.ref(), dtypes_[i], device_)
                           : allocate(backend_keys_, shape_.ref(), dtypes_[i], device_);
      tensors_[i] = results_[i] = &owned_[i];
      continue;
    }
    if (out.sizes() != shape_.ref()) {
      bool is_input = false;
      for (size_t k = num_outputs_; k < num_operands_; ++k) {
        is_input = is_input || out.is_same(*tensors_[k]);
      }
      TORCH_CHECK(config.resize_outputs_ && !is_input, op_name_,
                  ": the output has shape ", out.sizes(), " but the inputs "
                  "broadcast to shape ", shape_.ref(), ", and an output that is "
                  "also an input cannot be resized. Make the inputs broadcast "
                  "to the output's shape, or use the out-of-place op.");
      at::native::resize_output(out, shape_.ref(), op_name_);
    }
    TORCH_CHECK(!config.check_mem_overlap_ || !has_internal_overlap(out),
                op_name_, ": unsupported operation: more than one element of "
                "the written-to tensor refers to a single memory location. "
                "Please clone() the tensor before performing the operation.");
    if (out.scalar_type() == dtypes_[i]) continue;
    // Compute in dtypes_[i], then copy (converting) into `out` after the loop.
    TORCH_CHECK(at::can_cast(dtypes_[i], out.scalar_type()), op_name_,
                ": result type ", dtypes_[i], " can't be cast to the desired "
                "output type ", out.scalar_type(), ". Pass an output of dtype ",
                dtypes_[i], ", or convert the inputs first.");
    owned_[i] = allocate_fn_ ? allocate_fn_(shape_.ref(), dtypes_[i], device_)
                           : allocate(backend_keys_, shape_.ref(), dtypes_[i], device_);
    tensors_[i] = &owned_[i];
    has_temporary_outputs_ = true;
  }
}

// Note [CPU scalars on a device]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A 0-dim CPU input of an iteration on another device (allowed by
// TensorIteratorConfig::allow_cpu_scalars) takes part in broadcasting and
// type promotion as any 0-dim tensor (a wrapped number as a wrapped number),
// but its element is never copied to the device: it is converted to its
// compute dtype into scalar_buffers_, and the backend hands the value to
// its kernel (a GPU kernel takes it as a launch parameter). So `x * 2` and
// `x * cpu_scalar` on a GPU cost no host-to-device copy.
void TensorIteratorBase::prepare_inputs() {
  for (size_t k = num_outputs_; k < num_operands_; ++k) {
    const Tensor& in = *tensors_[k];
    if (is_cpu_scalar(k)) {
      cast_scalar(scalar_buffers_[k], dtypes_[k], in.data_ptr(), in.scalar_type());
      data_[k] = scalar_buffers_[k];
      continue;
    }
    bool overlaps = false;
    for (size_t i = 0; i < num_outputs_; ++i) {
      overlaps = overlaps || needs_copy_before_write(in, *tensors_[i]);
    }
    if (in.scalar_type() == dtypes_[k] && !overlaps) continue;
    if (in.numel() == 1 && device_.is_cpu()) {
      // A single element (e.g. a wrapped number): convert it into a buffer
      // of the iterator, read with stride 0, instead of a new tensor.
      cast_scalar(scalar_buffers_[k], dtypes_[k], in.data_ptr(), in.scalar_type());
      data_[k] = scalar_buffers_[k];
      continue;
    }
    owned_[k] = allocate_fn_ ? allocate_fn_(in.sizes(), dtypes_[k], device_)
                             : allocate(backend_keys_, in.sizes(), dtypes_[k], device_);
    copy_elements(backend_keys_, owned_[k], in);
    tensors_[k] = &owned_[k];
  }
}

void TensorIteratorBase::copy_temporary_outputs() {
  for (size_t i = 0; i < num_outputs_; ++i) {
    if (tensors_[i] != results_[i]) copy_elements(backend_keys_, *results_[i], *tensors_[i]);
  }
}

// ---- iteration layout ---------------------------------------------------------

// Note [Iteration layout]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The loop sees dimensions innermost first, with byte strides per operand
// (0 along a broadcast dimension). They are reordered so that the
// innermost has the smallest strides, judged by the outputs first, and then
// neighbours that every operand steps through as one are merged, so that a
// contiguous tensor of any shape, or a transposed one written in place, is
// walked in memory order in as few runs as possible.
void TensorIteratorBase::compute_strides() {
  const size_t nd = shape_.size();
  numel_ = 1;
  for (size_t d = 0; d < nd; ++d) numel_ *= shape_[d];
  if (nd == 0) {  // 0-dim: one element; unit strides take kernels' fast path
    sizes_.assign({1});
    for (size_t k = 0; k < num_operands_; ++k) {
      if (data_[k] == nullptr) data_[k] = static_cast<char*>(tensors_[k]->data_ptr());
      strides_[k].assign({static_cast<int64_t>(c10::elementSize(dtypes_[k]))});
    }
    return;
  }
  // Dimensions are stored innermost first: index 0 is the last dimension.
  sizes_.resize(nd);
  for (size_t d = 0; d < nd; ++d) sizes_[d] = shape_[nd - 1 - d];
  for (size_t k = 0; k < num_operands_; ++k) {
    DimVector& strides = strides_[k];
    strides.resize(nd);
    if (data_[k] != nullptr) {  // a scalar buffer: stride 0 throughout
      for (size_t d = 0; d < nd; ++d) strides[d] = 0;
      continue;
    }
    const c10::TensorImpl* t = tensors_[k]->unsafeGetTensorImpl();
    data_[k] = static_cast<char*>(t->data());
    const auto itemsize = static_cast<int64_t>(t->itemsize());
    const int64_t* tsizes = t->sizes().data();
    const int64_t* tstrides = t->strides().data();
    const size_t tdim = static_cast<size_t>(t->dim());
    for (size_t d = 0; d < nd; ++d) {
      if (d >= tdim) {
        strides[d] = 0;  // a leading dimension the tensor lacks
        continue;
      }
      // A dimension the tensor is broadcast along is read with stride 0.
      const size_t td = tdim - 1 - d;
      strides[d] = tsizes[td] == 1 && sizes_[d] != 1 ? 0 : tstrides[td] * itemsize;
    }
  }
}

// Orders the dimensions so that the innermost has the smallest strides,
// judged by the outputs first: an in-place op on a transposed tensor then
// walks its memory in order. An insertion sort, stable for ties.
void TensorIteratorBase::reorder_dimensions() {
  const size_t nd = sizes_.size();
  if (nd <= 1) return;
  // > 0 if dimension d1 should be inside d0, < 0 if outside, 0 if no operand
  // can tell (stride 0 or equal strides everywhere).
  auto compare = [&](size_t d0, size_t d1) {
    for (size_t k = 0; k < num_operands_; ++k) {
      const int64_t s0 = strides_[k][d0];
      const int64_t s1 = strides_[k][d1];
      if (s0 == 0 || s1 == 0 || s0 == s1) continue;
      return s0 < s1 ? -1 : 1;
    }
    return 0;
  };
  DimVector perm;
  perm.resize(nd);
  for (size_t d = 0; d < nd; ++d) perm[d] = static_cast<int64_t>(d);
  bool changed = false;
  for (size_t i = 1; i < nd; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      const int c = compare(static_cast<size_t>(perm[d0]), static_cast<size_t>(perm[d1]));
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
        changed = true;
      } else if (c < 0) {
        break;
      }
    }
  }
  if (!changed) return;
  DimVector tmp;
  tmp.resize(nd);
  auto apply = [&](DimVector& v) {
    for (size_t d = 0; d < nd; ++d) tmp[d] = v[static_cast<size_t>(perm[d])];
    for (size_t d = 0; d < nd; ++d) v[d] = tmp[d];
  };
  apply(sizes_);
  for (size_t k = 0; k < num_operands_; ++k) apply(strides_[k]);
}

// Merges neighbouring dimensions that every operand steps through as one
// (stride of the outer = stride * size of the inner), and drops size-1 ones,
// so that a contiguous tensor of any shape is one run of elements.
void TensorIteratorBase::coalesce_dimensions() {
  const size_t nd = sizes_.size();
  if (nd <= 1) return;
  auto can_merge = [&](size_t inner, size_t outer) {
    if (sizes_[inner] == 1 || sizes_[outer] == 1) return true;
    for (size_t k = 0; k < num_operands_; ++k) {
      if (strides_[k][inner] * sizes_[inner] != strides_[k][outer]) return false;
    }
    return true;
  };
  size_t prev = 0;
  for (size_t d = 1; d < nd; ++d) {
    if (can_merge(prev, d)) {
      if (sizes_[prev] == 1) {
        for (size_t k = 0; k < num_operands_; ++k) strides_[k][prev] = strides_[k][d];
      }
      sizes_[prev] *= sizes_[d];
    } else {
      ++prev;
      if (prev != d) {
        sizes_[prev] = sizes_[d];
        for (size_t k = 0; k < num_operands_; ++k) strides_[k][prev] = strides_[k][d];
      }
    }
  }
  sizes_.resize(prev + 1);
  for (size_t k = 0; k < num_operands_; ++k) strides_[k].resize(prev + 1);
}

bool TensorIteratorBase::is_contiguous() const {
  if (sizes_.size() != 1) return false;
  for (size_t k = 0; k < num_operands_; ++k) {
    if (strides_[k][0] != static_cast<int64_t>(c10::elementSize(dtypes_[k]))) {
      return false;
    }
  }
  return true;
}

}  // namespace at
