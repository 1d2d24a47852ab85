// backends/cpu/sort.h — the CPU plugin's sort and topk.
//
//   auto [values, indices] = ember::cpu::sort_stable(x, true, -1, false);
//
// Registered for DispatchKey::CPU (sort.cc); sort and sort.values are
// composite (aten/ops/indexing.cc) and call the stable overloads. Indices
// are Long positions along `dim`. NaN orders above every number (last when
// ascending, first when descending, as PyTorch). Half and BFloat16 compare
// as float.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"

namespace ember::cpu {

// sort: every slice along `dim` sorted. The sort is always stable (equal
// values keep their order), which `stable=false` also allows.
std::tuple<at::Tensor, at::Tensor> sort_stable(const at::Tensor& self,
                                               std::optional<bool> stable,
                                               int64_t dim,
                                               bool descending);  // sort.stable
std::tuple<at::Tensor&, at::Tensor&> sort_values_stable(
    const at::Tensor& self, std::optional<bool> stable, int64_t dim, bool descending,
    at::Tensor& values, at::Tensor& indices);  // sort.values_stable

// topk: the k largest (or smallest) elements of every slice along `dim`,
// 0 <= k <= size. Results are in order (largest first, or smallest first)
// whether or not `sorted` is set; equal values come in index order. Not for
// Bool, as in PyTorch.
std::tuple<at::Tensor, at::Tensor> topk(const at::Tensor& self, int64_t k, int64_t dim,
                                        bool largest, bool sorted);  // topk
std::tuple<at::Tensor&, at::Tensor&> topk_out(const at::Tensor& self, int64_t k,
                                              int64_t dim, bool largest, bool sorted,
                                              at::Tensor& values,
                                              at::Tensor& indices);  // topk.values

}  // namespace ember::cpu
