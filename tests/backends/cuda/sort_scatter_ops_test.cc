// The CUDA sort's keys (backends/cuda/kernels/sort_keys.cuh) against the CPU
// plugin's sort and topk, and scatter's reduction step (scatter_combine in
// kernels/element_ops.cuh) against the CPU's scatter, run on the host over
// every dtype's values and edge bit patterns. CI has no GPU: this is where
// the order and arithmetic those kernels apply are checked there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include <ATen/ATen.h>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/sort_keys.cuh"
#include "tests/backends/cuda/element_test_util.h"

namespace {

namespace k = ember::cuda::kernels;
using c10::ScalarType;
using ember_element_test::doubles;
using ember_element_test::elem;
using ember_element_test::kAll;
using ember_element_test::num;
using ember_element_test::show;
using ember_element_test::tensor_of;
using ember_element_test::values_of;
using ember_element_test::with_type;

// The raw bit patterns of the edge values of a floating type beyond those
// from doubles: NaNs of both signs with payloads and signalling ones, the
// smallest denormals, the largest finite values.
template <typename T>
std::vector<uint64_t> edge_bits() {
  if (std::is_same<T, float>::value) {
    return {0x7fc00001, 0xffc00000, 0x7f800001, 0xff812345, 0x00000001, 0x80000001,
            0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000};
  }
  if (std::is_same<T, double>::value) {
    return {0x7ff8000000000001, 0xfff8000000000000, 0x7ff0000000000001, 0x0000000000000001,
            0x8000000000000001, 0x7fefffffffffffff, 0xffefffffffffffff};
  }
  if (std::is_same<T, k::Half>::value) {
    return {0x7e01, 0xfe00, 0x7c01, 0xfd55, 0x0001, 0x8001, 0x7bff, 0xfbff, 0x0400, 0x8400};
  }
  if (std::is_same<T, k::BFloat16>::value) {
    return {0x7fc1, 0xffc0, 0x7f81, 0xff95, 0x0001, 0x8001, 0x7f7f, 0xff7f, 0x0080, 0x8080};
  }
  return {};
}

// One element (a vector of them is an array of T, bool included).
template <typename T>
struct Box {
  T v;
};

// Elements of T covering its order: values_of's, the type's extremes, and
// for floating types edge_bits'.
template <typename T>
std::vector<Box<T>> sort_elements(ScalarType t) {
  std::vector<Box<T>> v;
  for (double d : values_of(t)) v.push_back({elem<T>(d)});
  if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
    v.push_back({std::numeric_limits<T>::min()});
    v.push_back({std::numeric_limits<T>::max()});
    v.push_back({static_cast<T>(std::numeric_limits<T>::min() + 1)});
  }
  for (uint64_t bits : edge_bits<T>()) {
    Box<T> e;
    std::memcpy(&e.v, &bits, sizeof e.v);  // little-endian: the low bytes
    v.push_back(e);
  }
  return v;
}

// The CUDA sort orders each dtype's keys (sort_key) ascending, stably. On
// every dtype's elements, each three times and interleaved (so that equal
// values, -0.0 and +0.0, NaNs of any payload, must keep their positions'
// order), the positions ordered by key are exactly the CPU's stable sort's,
// ascending and descending, and the CPU's topk's with k = n (largest and
// smallest; ties to the lower position).
TEST(SortScatterOps, SortKeysOrderLikeTheCpu) {
  for (ScalarType t : kAll) {
    SCOPED_TRACE(c10::toString(t));
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      static_assert(sizeof(Box<T>) == sizeof(T), "an array of T");
      const std::vector<Box<T>> distinct = sort_elements<T>(t);
      std::vector<Box<T>> v;
      const size_t m = distinct.size(), n = 3 * m;
      for (size_t i = 0; i < n; ++i) v.push_back(distinct[(i * 7 + i / m) % m]);
      at::Tensor x = at::empty({static_cast<int64_t>(n)}, at::TensorOptions().dtype(t));
      ASSERT_EQ(static_cast<size_t>(x.element_size()), sizeof(T));
      std::memcpy(x.data_ptr(), v.data(), n * sizeof(T));
      for (bool descending : {false, true}) {
        SCOPED_TRACE(descending ? "descending" : "ascending");
        std::vector<int64_t> by_key(n);
        for (size_t i = 0; i < n; ++i) by_key[i] = static_cast<int64_t>(i);
        std::stable_sort(by_key.begin(), by_key.end(), [&](int64_t a, int64_t b) {
          return k::sort_key(v[static_cast<size_t>(a)].v, descending) <
                 k::sort_key(v[static_cast<size_t>(b)].v, descending);
        });
        auto check = [&](const at::Tensor& indices, const char* what) {
          const at::Tensor i = indices.contiguous();
          const std::vector<int64_t> cpu(i.data_ptr<int64_t>(), i.data_ptr<int64_t>() + n);
          EXPECT_EQ(cpu, by_key) << what;
        };
        check(std::get<1>(at::sort(x, /*stable=*/true, 0, descending)), "sort");
        if (t != ScalarType::Bool) {
          check(std::get<1>(at::topk(x, static_cast<int64_t>(n), 0, descending)), "topk");
        }
      }
    });
  }
}

// scatter's reduce='add' / 'multiply' step (scatter_combine, which the
// kernels apply atomically) against the CPU's scatter with one contribution
// per element: every pair of each dtype's values, exactly (Bool or/and,
// wrapping integers, floating types in opmath_t and rounded once).
TEST(SortScatterOps, ScatterCombineMatchesTheCpu) {
  for (ScalarType t : kAll) {
    SCOPED_TRACE(c10::toString(t));
    const std::vector<double> v = values_of(t);
    std::vector<double> as, bs;
    for (double a : v) {
      for (double b : v) {
        as.push_back(a);
        bs.push_back(b);
      }
    }
    const at::Tensor self = tensor_of(as, t), src = tensor_of(bs, t);
    const at::Tensor index = at::arange(static_cast<int64_t>(as.size()));
    const std::vector<double> sa = doubles(self), sb = doubles(src);
    for (bool add : {true, false}) {
      const std::vector<double> cpu =
          doubles(at::scatter(self, 0, index, src, add ? "add" : "multiply"));
      with_type(t, [&](auto tag) {
        using T = decltype(tag);
        for (size_t i = 0; i < sa.size(); ++i) {
          const double got = num(k::scatter_combine(elem<T>(sa[i]), elem<T>(sb[i]), add));
          EXPECT_TRUE(std::isnan(cpu[i]) ? std::isnan(got) : cpu[i] == got)
              << show(sa[i]) << (add ? " + " : " * ") << show(sb[i]) << ": cpu "
              << show(cpu[i]) << ", kernel " << show(got);
        }
      });
    }
  }
}

}  // namespace
