// The CPU plugin's copy_ and fill_, and the element conversion that type
// promotion uses.
#include <cstring>

#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// Copies `n` elements of sizeof(word_t) bytes between strided runs.
template <typename word_t>
void copy_words(char* dst, int64_t dst_stride, const char* src,
                int64_t src_stride, int64_t n) {
  constexpr int64_t kWidth = sizeof(word_t);
  if (dst_stride == kWidth && src_stride == kWidth) {
    std::memcpy(dst, src, static_cast<size_t>(n * kWidth));
  } else if (src_stride == 0) {
    word_t value;
    std::memcpy(&value, src, kWidth);
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_stride, &value, kWidth);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * dst_stride, src + i * src_stride, kWidth);
    }
  }
}

void copy_same_dtype(TensorIterator& iter, size_t width) {
  iter.for_each([width](char** data, const int64_t* strides, int64_t n) {
    switch (width) {
      case 1: return copy_words<uint8_t>(data[0], strides[0], data[1], strides[1], n);
      case 2: return copy_words<uint16_t>(data[0], strides[0], data[1], strides[1], n);
      case 4: return copy_words<uint32_t>(data[0], strides[0], data[1], strides[1], n);
      default: return copy_words<uint64_t>(data[0], strides[0], data[1], strides[1], n);
    }
  });
}

template <typename dst_t, typename src_t>
void convert_loop(char** data, const int64_t* strides, int64_t n) {
  if (strides[0] == sizeof(dst_t) && strides[1] == sizeof(src_t)) {
    dst_t* __restrict out = reinterpret_cast<dst_t*>(data[0]);
    const src_t* __restrict in = reinterpret_cast<const src_t*>(data[1]);
    for (int64_t i = 0; i < n; ++i) out[i] = convert<dst_t>(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<dst_t*>(data[0] + i * strides[0]) =
          convert<dst_t>(*reinterpret_cast<const src_t*>(data[1] + i * strides[1]));
    }
  }
}

// Whether copy_ can be one memcpy: same dtype and shape, both contiguous,
// and no shared bytes.
bool is_plain_memcpy(const at::Tensor& self, const at::Tensor& src) {
  if (self.scalar_type() != src.scalar_type() || !self.is_contiguous() ||
      !src.is_contiguous() || self.sizes() != src.sizes()) {
    return false;
  }
  if (!self.storage().is_alias_of(src.storage())) return true;
  const char* a = static_cast<const char*>(self.data_ptr());
  const char* b = static_cast<const char*>(src.data_ptr());
  const auto bytes = static_cast<int64_t>(self.nbytes());
  return a + bytes <= b || b + bytes <= a;
}

}  // namespace

void cast_element(void* dst, c10::ScalarType dst_type, const void* src,
                  c10::ScalarType src_type) {
  at::cast_scalar(dst, dst_type, src, src_type);
}

void copy_into(const at::Tensor& self, const at::Tensor& src) {
  TORCH_CHECK(self.defined() && src.defined(), "copy_: the ",
              self.defined() ? "source" : "destination", " is an undefined "
              "tensor; pass tensors that hold data.");
  if (self.is_same(src)) return;
  if (is_plain_memcpy(self, src)) {
    if (self.numel() > 0) std::memcpy(self.data_ptr(), src.data_ptr(), self.nbytes());
    return;
  }
  TensorIterator iter(TensorIteratorConfig("copy_")
                          .add_output(self)
                          .add_input(src)
                          .promote_inputs_to_common_dtype(false)
                          .declare_static_shape(self.sizes())
                          .resize_outputs(false));
  const c10::ScalarType dst_type = iter.dtype(0);
  const c10::ScalarType src_type = iter.dtype(1);
  if (dst_type == src_type) {
    copy_same_dtype(iter, c10::elementSize(dst_type));
    return;
  }
  EMBER_DISPATCH_ALL_TYPES(dst_type, "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL_TYPES(src_type, "copy_", [&] {
      iter.for_each([](char** data, const int64_t* strides, int64_t n) {
        convert_loop<dst_t, scalar_t>(data, strides, n);
      });
    });
  });
}

at::Tensor& copy_(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  (void)non_blocking;  // CPU copies are synchronous
  copy_into(self, src);
  return self;
}

at::Tensor& fill_(at::Tensor& self, const c10::Scalar& value) {
  TORCH_CHECK(self.defined(), "fill_: the tensor is undefined; pass a tensor "
              "that holds data.");
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "fill_", [&] {
    const scalar_t v = value.to<scalar_t>();
    if (self.is_contiguous()) {
      scalar_t* __restrict out = static_cast<scalar_t*>(self.data_ptr());
      const int64_t n = self.numel();
      for (int64_t i = 0; i < n; ++i) out[i] = v;
      return;
    }
    TensorIterator iter(
        TensorIteratorConfig("fill_").add_output(self).check_mem_overlap(false));
    iter.for_each([v](char** data, const int64_t* strides, int64_t n) {
      if (strides[0] == sizeof(scalar_t)) {
        scalar_t* __restrict out = reinterpret_cast<scalar_t*>(data[0]);
        for (int64_t i = 0; i < n; ++i) out[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) = v;
        }
      }
    });
  });
  return self;
}

// _local_scalar_dense: the one element of a CPU tensor as a Scalar (what
// Tensor::item() dispatches to).
c10::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "_local_scalar_dense: a Tensor with ", self.numel(),
              " elements cannot be converted to Scalar; index it down to one "
              "element first.");
  const void* p = self.data_ptr();
  switch (self.scalar_type()) {
#define EMBER_READ_(cpp, name) \
  case c10::ScalarType::name:  \
    return c10::Scalar(*static_cast<const cpp*>(p));
    C10_FORALL_SCALAR_TYPES(EMBER_READ_)
#undef EMBER_READ_
    default:
      break;
  }
  TORCH_CHECK(false, "_local_scalar_dense: unsupported dtype ", self.scalar_type(), ".");
}

}  // namespace ember::cpu
