#include "nn/data/datasets/rows.h"

#include "aten/Functions.h"
#include "c10/util/Exception.h"

namespace torch {
namespace data {
namespace datasets {
namespace detail {

Example<> row(const char* where, const at::Tensor& data, const at::Tensor& targets, size_t index) {
  const auto n = static_cast<size_t>(data.size(0));
  TORCH_CHECK(index < n, where, ": index ", index, " is out of range for a dataset of ", n,
              " examples; expected an index in [0, ", n, ").");
  const auto i = static_cast<int64_t>(index);
  return {data.select(0, i), targets.select(0, i)};
}

Example<> gather_rows(const char* where, const at::Tensor& data, const at::Tensor& targets,
                      c10::ArrayRef<size_t> indices) {
  TORCH_CHECK(!indices.empty(), where,
              ": expected at least one index in a batch request, got none.");
  const auto n = static_cast<size_t>(data.size(0));
  at::Tensor index = at::empty({static_cast<int64_t>(indices.size())}, at::kLong);
  int64_t* out = index.data_ptr<int64_t>();
  for (size_t k = 0; k < indices.size(); ++k) {
    TORCH_CHECK(indices[k] < n, where, ": index ", indices[k], " is out of range for a dataset of ",
                n, " examples; expected an index in [0, ", n, ").");
    out[k] = static_cast<int64_t>(indices[k]);
  }
  return {data.index_select(0, index), targets.index_select(0, index)};
}

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
