// The CPU plugin's masked_fill_, masked_select and nonzero.
#include <cstring>
#include <vector>

#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/indexing.h"
#include "backends/cpu/indexing_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

using at::native::check_bool_mask;

// self[mask] = v (v already in self's dtype).
template <typename scalar_t>
void masked_fill_loop(const at::Tensor& self, const at::Tensor& mask, scalar_t v) {
  TensorIterator iter(TensorIteratorConfig("masked_fill_")
                          .add_output(self)
                          .add_input(mask)
                          .promote_inputs_to_common_dtype(false)
                          .declare_static_shape(self.sizes())
                          .resize_outputs(false));
  iter.for_each([v](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(scalar_t) && strides[1] == sizeof(bool)) {
      scalar_t* __restrict out = reinterpret_cast<scalar_t*>(data[0]);
      const bool* __restrict m = reinterpret_cast<const bool*>(data[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = m[i] ? v : out[i];
    } else {
      for (int64_t i = 0; i < n; ++i) {
        if (*reinterpret_cast<const bool*>(data[1] + i * strides[1])) {
          *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) = v;
        }
      }
    }
  });
}

using at::native::check_masked_fill;

}  // namespace

at::Tensor& masked_fill__scalar(at::Tensor& self, const at::Tensor& mask,
                                const c10::Scalar& value) {
  check_masked_fill(self, mask);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "masked_fill_", [&] {
    masked_fill_loop<scalar_t>(self, mask, value.to<scalar_t>());
  });
  return self;
}

at::Tensor& masked_fill__tensor(at::Tensor& self, const at::Tensor& mask,
                                const at::Tensor& value) {
  at::native::check_masked_fill_value(value);
  check_masked_fill(self, mask);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "masked_fill_", [&] {
    scalar_t v;
    cast_element(&v, self.scalar_type(), value.data_ptr(), value.scalar_type());
    masked_fill_loop<scalar_t>(self, mask, v);
  });
  return self;
}

namespace {

// The elements of self where mask is true (both broadcast), row-major.
at::Tensor masked_select_impl(const at::Tensor& self, const at::Tensor& mask,
                              const char* op) {
  check_bool_mask(mask, op);
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes(), op);
  const at::Tensor s = expand_to(self, shape, op, "self");
  const at::Tensor m = expand_to(mask, shape, op, "mask");
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  const bool* mp = static_cast<const bool*>(m.data_ptr());
  int64_t count = 0;
  {
    StridedWalk<1> walk(shape, {m.strides()}, 0);
    for (int64_t i = 0; i < total; ++i, walk.next()) count += mp[walk.offset[0]] ? 1 : 0;
  }
  at::Tensor out = empty_cpu({count}, self.scalar_type(), op);
  if (count == 0) return out;
  dispatch_by_size(self.itemsize(), op, [&](auto tag) {
    using word_t = typename decltype(tag)::type;
    const word_t* sp = static_cast<const word_t*>(s.data_ptr());
    word_t* op_ = static_cast<word_t*>(out.data_ptr());
    StridedWalk<2> walk(shape, {m.strides(), s.strides()}, 0);
    int64_t k = 0;
    for (int64_t i = 0; i < total; ++i, walk.next()) {
      if (mp[walk.offset[0]]) op_[k++] = sp[walk.offset[1]];
    }
  });
  return out;
}

}  // namespace

at::Tensor masked_select(const at::Tensor& self, const at::Tensor& mask) {
  return masked_select_impl(self, mask, "masked_select");
}

at::Tensor& masked_select_out(const at::Tensor& self, const at::Tensor& mask,
                              at::Tensor& out) {
  check_out_dtype(out, self.scalar_type(), "masked_select_out");
  const at::Tensor result = masked_select_impl(self, mask, "masked_select_out");
  resize_output(out, result.sizes(), "masked_select_out");
  copy_into(out, result);
  return out;
}

// ---- nonzero ------------------------------------------------------------------------

namespace {

at::Tensor nonzero_impl(const at::Tensor& self) {
  const int64_t nd = self.dim();
  const int64_t total = self.numel();
  std::vector<uint8_t> flags(static_cast<size_t>(total));
  int64_t count = 0;
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "nonzero", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(self.data_ptr());
    if (self.is_contiguous()) {
      for (int64_t i = 0; i < total; ++i) {
        flags[static_cast<size_t>(i)] = convert<bool>(p[i]) ? 1 : 0;
      }
    } else {
      StridedWalk<1> walk(self.sizes(), {self.strides()}, 0);
      for (int64_t i = 0; i < total; ++i, walk.next()) {
        flags[static_cast<size_t>(i)] = convert<bool>(p[walk.offset[0]]) ? 1 : 0;
      }
    }
  });
  for (uint8_t f : flags) count += f;
  at::Tensor out = empty_cpu({count, nd}, c10::ScalarType::Long, "nonzero");
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  if (count == 0 || nd == 0) return out;
  std::vector<int64_t> coord(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < total; ++i) {
    if (flags[static_cast<size_t>(i)]) {
      std::memcpy(o, coord.data(), static_cast<size_t>(nd) * sizeof(int64_t));
      o += nd;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++coord[static_cast<size_t>(d)] < self.size(d)) break;
      coord[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

}  // namespace

at::Tensor nonzero(const at::Tensor& self) { return nonzero_impl(self); }

at::Tensor& nonzero_out(const at::Tensor& self, at::Tensor& out) {
  check_out_dtype(out, c10::ScalarType::Long, "nonzero_out");
  check_no_overlap(out, self, "nonzero_out");
  const at::Tensor result = nonzero_impl(self);
  resize_output(out, result.sizes(), "nonzero_out");
  copy_into(out, result);
  return out;
}

}  // namespace ember::cpu
