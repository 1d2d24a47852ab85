// Helpers shared by the random_*_test.cc suites: tensors read back as
// doubles, sample moments, generator access.
#pragma once


#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <set>
#include <thread>
#include <mutex>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "aten/PhiloxRNG.h"
#include "tests/ops/conformance.h"

namespace ember_random_test {

using ember_conformance::errorOf;
using ember_conformance::HasSubstr;

using ember_conformance::HasSubstr;

template <typename T>
std::vector<double> convert_all(const at::Tensor& c) {
  const T* p = static_cast<const T*>(c.data_ptr());
  std::vector<double> out(static_cast<size_t>(c.numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<float>(p[i]));
  return out;
}

// Elements of a CPU tensor as doubles, row-major (large tensors read
// directly, which keeps the statistical tests fast under sanitizers).
inline std::vector<double> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  switch (c.scalar_type()) {
    case at::kFloat: return convert_all<float>(c);
    case at::kHalf: return convert_all<c10::Half>(c);
    case at::kBFloat16: return convert_all<c10::BFloat16>(c);
    default: return ember_conformance::to_ref(t).v;
  }
}

struct Moments {
  double mean;
  double var;
};

inline Moments moments(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, sq / static_cast<double>(v.size() - 1)};
}

inline uint64_t offset_of(const at::Generator& g) {
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.get<at::CPUGeneratorImpl>()->get_offset();
}

inline at::Generator make_gen(uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

// Same shape, dtype and bytes (both read contiguously).
inline bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const at::Tensor ca = a.contiguous();
  const at::Tensor cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

}  // namespace ember_random_test
