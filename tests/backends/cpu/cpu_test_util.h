// Shared by the CPU kernel tests: tensors written and read without the
// kernels under test, and reference helpers. Test-only: include it from one
// source file per test binary.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/pointwise.h"
#include "c10/core/ScalarType.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"
#include "tests/support/error_of.h"

namespace ember_cpu_test {

using c10::ScalarType;
using ember_test::errorOf;
using ::testing::HasSubstr;
namespace cpu = ember::cpu;

constexpr ScalarType kAllDtypes[] = {
#define EMBER_TEST_DTYPE_(cpp_type, name) ScalarType::name,
    C10_FORALL_SCALAR_TYPES(EMBER_TEST_DTYPE_)
#undef EMBER_TEST_DTYPE_
};

// ---- tensors, written and read without the kernels under test ------------------

double load(const void* p, ScalarType t) {
  switch (t) {
#define EMBER_TEST_LOAD_(cpp_type, name) \
  case ScalarType::name:                 \
    return static_cast<double>(static_cast<float>(*static_cast<const cpp_type*>(p)));
    EMBER_TEST_LOAD_(::c10::Half, Half)
    EMBER_TEST_LOAD_(::c10::BFloat16, BFloat16)
#undef EMBER_TEST_LOAD_
    case ScalarType::Double:
      return *static_cast<const double*>(p);
    case ScalarType::Long:
      return static_cast<double>(*static_cast<const int64_t*>(p));
    case ScalarType::Int:
      return *static_cast<const int32_t*>(p);
    case ScalarType::Short:
      return *static_cast<const int16_t*>(p);
    case ScalarType::Char:
      return *static_cast<const int8_t*>(p);
    case ScalarType::Byte:
      return *static_cast<const uint8_t*>(p);
    case ScalarType::Bool:
      return *static_cast<const bool*>(p) ? 1 : 0;
    case ScalarType::Float:
      return *static_cast<const float*>(p);
    default:
      break;
  }
  ADD_FAILURE() << "load: dtype " << t;
  return 0;
}

// `v` as dtype `t` holds it: integers wrap, bool is nonzero, 16-bit floats
// round.
double as_dtype(double v, ScalarType t) {
  const auto i = static_cast<int64_t>(v);
  switch (t) {
    case ScalarType::Byte: return static_cast<uint8_t>(i);
    case ScalarType::Char: return static_cast<int8_t>(i);
    case ScalarType::Short: return static_cast<int16_t>(i);
    case ScalarType::Int: return static_cast<int32_t>(i);
    case ScalarType::Long: return static_cast<double>(i);
    case ScalarType::Bool: return v != 0 ? 1 : 0;
    case ScalarType::Half: return static_cast<float>(c10::Half(static_cast<float>(v)));
    case ScalarType::BFloat16:
      return static_cast<float>(c10::BFloat16(static_cast<float>(v)));
    case ScalarType::Float: return static_cast<float>(v);
    default: return v;
  }
}

void store(void* p, ScalarType t, double v) {
  switch (t) {
    case ScalarType::Byte: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); return;
    case ScalarType::Char: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); return;
    case ScalarType::Short: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); return;
    case ScalarType::Int: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); return;
    case ScalarType::Long: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); return;
    case ScalarType::Bool: *static_cast<bool*>(p) = v != 0; return;
    case ScalarType::Half: *static_cast<c10::Half*>(p) = c10::Half(static_cast<float>(v)); return;
    case ScalarType::BFloat16:
      *static_cast<c10::BFloat16*>(p) = c10::BFloat16(static_cast<float>(v));
      return;
    case ScalarType::Float: *static_cast<float*>(p) = static_cast<float>(v); return;
    case ScalarType::Double: *static_cast<double*>(p) = v; return;
    default: ADD_FAILURE() << "store: dtype " << t;
  }
}

at::Tensor empty(std::vector<int64_t> sizes, ScalarType dtype = c10::kFloat) {
  return cpu::empty(sizes, dtype, std::nullopt, std::nullopt, std::nullopt,
                    std::nullopt);
}

// Byte offset of the row-major `linear`-th element of t.
int64_t offset_of(const at::Tensor& t, int64_t linear) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (linear % t.size(d)) * t.stride(d);
    linear /= t.size(d);
  }
  return offset * static_cast<int64_t>(t.itemsize());
}

std::vector<double> values(const at::Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) {
    out.push_back(load(static_cast<char*>(t.data_ptr()) + offset_of(t, i), t.dtype()));
  }
  return out;
}

void set_values(const at::Tensor& t, const std::vector<double>& v) {
  ASSERT_EQ(static_cast<int64_t>(v.size()), t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) {
    store(static_cast<char*>(t.data_ptr()) + offset_of(t, i), t.dtype(),
          v[static_cast<size_t>(i)]);
  }
}

at::Tensor tensor(const std::vector<double>& v, std::vector<int64_t> sizes,
                  ScalarType dtype = c10::kFloat) {
  at::Tensor t = empty(std::move(sizes), dtype);
  set_values(t, v);
  return t;
}

at::Tensor scalar_tensor(double v, ScalarType dtype) { return tensor({v}, {}, dtype); }

at::Tensor ones(std::vector<int64_t> sizes, ScalarType dtype) {
  at::Tensor t = empty(std::move(sizes), dtype);
  set_values(t, std::vector<double>(static_cast<size_t>(t.numel()), 1.0));
  return t;
}

// A 0-dim tensor made from a number, as at::add(t, 2) makes one.
at::Tensor wrapped(double v, ScalarType dtype) {
  at::Tensor t = scalar_tensor(v, dtype);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

// A view of base's storage, as as_strided makes one.
at::Tensor view(const at::Tensor& base, std::vector<int64_t> sizes,
                std::vector<int64_t> strides, int64_t offset = 0) {
  c10::Storage storage = base.storage();
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), base.dtype());
  impl->set_sizes_and_strides(sizes, strides, offset);
  return at::Tensor(std::move(impl));
}

// t.t() for a 2-d t.
at::Tensor transposed(const at::Tensor& t) {
  return view(t, {t.size(1), t.size(0)}, {t.stride(1), t.stride(0)}, t.storage_offset());
}

// A [rows, cols] tensor whose logical values are `v` (row-major) but which
// is stored transposed (non-contiguous).
at::Tensor transposed_tensor(const std::vector<double>& v, int64_t rows, int64_t cols,
                             ScalarType dtype = c10::kFloat) {
  at::Tensor t = transposed(empty({cols, rows}, dtype));
  set_values(t, v);
  return t;
}

void expect_values(const at::Tensor& t, const std::vector<double>& expected,
                   double tolerance = 0) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], tolerance * std::max(1.0, std::abs(expected[i])))
          << "element " << i << " of " << t.dtype();
    }
  }
}

std::vector<double> sample(ScalarType t, int which) {
  if (t == ScalarType::Bool) {
    return which == 0 ? std::vector<double>{0, 1, 1, 0, 1, 0}
                      : std::vector<double>{1, 1, 0, 0, 0, 1};
  }
  if (t == ScalarType::Byte) {
    return which == 0 ? std::vector<double>{0, 1, 2, 3, 250, 7}
                      : std::vector<double>{5, 4, 3, 2, 1, 9};
  }
  return which == 0 ? std::vector<double>{-3, -1, 0, 1, 2, 7}
                    : std::vector<double>{5, -4, 3, 2, 1, -2};
}

template <typename F>
std::vector<double> map2(const std::vector<double>& a, const std::vector<double>& b,
                         ScalarType out, F f) {
  std::vector<double> r;
  for (size_t i = 0; i < a.size(); ++i) r.push_back(as_dtype(f(a[i], b[i]), out));
  return r;
}

class WarningRecorder : public c10::WarningHandler {
 public:
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
  std::vector<std::string> messages;
};


}  // namespace ember_cpu_test
