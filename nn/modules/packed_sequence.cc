#include "nn/modules/packed_sequence.h"

#include <algorithm>
#include <string>

#include "aten/TensorFactory.h"
#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"

namespace torch {
namespace nn {
namespace utils {
namespace rnn {
namespace {

Tensor long_tensor(const std::vector<int64_t>& values) {
  return at::tensor(c10::ArrayRef<int64_t>(values));
}

std::vector<int64_t> long_values(const Tensor& t) {
  const Tensor c = t.to(at::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// [n, rest...] filled with `value`, like `like`'s trailing dimensions.
Tensor fill_rows(const Tensor& like, int64_t n, double value) {
  std::vector<int64_t> shape = like.sizes().vec();
  shape[0] = n;
  return at::full(shape, value,
                  at::TensorOptions().dtype(like.scalar_type()).device(like.device()));
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return permutation;
  return std::get<1>(at::sort(permutation, 0, /*descending=*/false));
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  TORCH_CHECK(data_.defined() && batch_sizes_.defined(), "PackedSequence: data and batch_sizes "
              "must be defined tensors; build one with pack_padded_sequence or pack_sequence.");
  TORCH_CHECK(batch_sizes_.dim() == 1 && batch_sizes_.scalar_type() == at::kLong &&
                  batch_sizes_.device().is_cpu(),
              "PackedSequence: batch_sizes must be a 1-d int64 CPU tensor, but got ",
              batch_sizes_.dim(), "-d ", batch_sizes_.scalar_type(), " on ",
              batch_sizes_.device(), ".");
  if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
}

PackedSequence PackedSequence::to(const at::TensorOptions& options) const {
  const Tensor data = data_.to(options);
  auto move = [&](const Tensor& t) {
    return t.defined() ? t.to(at::TensorOptions().device(data.device())) : t;
  };
  return PackedSequence(data, batch_sizes_, move(sorted_indices_), move(unsorted_indices_));
}

PackedSequence PackedSequence::cpu() const {
  return to(at::TensorOptions().device(at::kCPU));
}

namespace detail {
std::vector<int64_t> checked_batch_sizes(const PackedSequence& sequence, const char* where) {
  TORCH_CHECK(sequence.data().defined() && sequence.batch_sizes().defined(), where,
              ": the PackedSequence is empty; build one with pack_padded_sequence or "
              "pack_sequence.");
  const std::vector<int64_t> sizes = long_values(sequence.batch_sizes());
  TORCH_CHECK(!sizes.empty(), where, ": the PackedSequence has no time steps.");
  int64_t total = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    TORCH_CHECK(sizes[t] > 0 && (t == 0 || sizes[t] <= sizes[t - 1]), where, ": batch_sizes "
                "must be positive and non-increasing (longest sequence first), but got ",
                sequence.batch_sizes().sizes(), " values ", c10::IntArrayRef(sizes), ".");
    total += sizes[t];
  }
  TORCH_CHECK(sequence.data().dim() >= 1 && sequence.data().size(0) == total, where,
              ": the PackedSequence's data has ",
              sequence.data().dim() >= 1 ? sequence.data().size(0) : 0, " rows but its "
              "batch_sizes add up to ", total, ".");
  return sizes;
}
}  // namespace detail

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first,
                                    bool enforce_sorted) {
  TORCH_CHECK(input.defined() && input.dim() >= 2, "pack_padded_sequence: expected an input "
              "[T, B, *] (or [B, T, *] with batch_first), but got ",
              input.defined() ? c10::str("sizes ", input.sizes()) : std::string("undefined"),
              ".");
  TORCH_CHECK(lengths.defined() && lengths.dim() == 1 &&
                  (c10::isIntegralType(lengths.scalar_type(), /*includeBool=*/false)),
              "pack_padded_sequence: lengths must be a 1-d integer tensor (one length per "
              "sequence), but got ",
              lengths.defined() ? c10::str(lengths.scalar_type(), " of sizes ", lengths.sizes())
                                : std::string("undefined"),
              ".");
  if (batch_first) input = input.transpose(0, 1);
  const int64_t steps = input.size(0), batch = input.size(1);
  TORCH_CHECK(lengths.numel() == batch, "pack_padded_sequence: expected ", batch,
              " lengths (the input's batch size), but got ", lengths.numel(), ".");
  std::vector<int64_t> lens = long_values(lengths.to(at::kCPU));
  for (int64_t len : lens) {
    TORCH_CHECK(len > 0 && len <= steps, "pack_padded_sequence: every length must be between "
                "1 and the number of time steps (", steps, "), but got ", c10::IntArrayRef(lens),
                ".");
  }
  Tensor sorted_indices;
  if (enforce_sorted) {
    for (size_t b = 1; b < lens.size(); ++b) {
      TORCH_CHECK(lens[b] <= lens[b - 1], "pack_padded_sequence: lengths must be sorted in "
                  "decreasing order when enforce_sorted is true, but got ",
                  c10::IntArrayRef(lens), "; sort the batch or pass enforce_sorted=false.");
    }
  } else {
    std::vector<int64_t> order(lens.size());
    for (size_t b = 0; b < order.size(); ++b) order[b] = static_cast<int64_t>(b);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return lens[a] > lens[b]; });
    std::vector<int64_t> sorted(lens.size());
    for (size_t b = 0; b < order.size(); ++b) sorted[b] = lens[order[b]];
    lens = sorted;
    sorted_indices = long_tensor(order).to(input.device());
    input = input.index_select(1, sorted_indices);
  }
  std::vector<int64_t> batch_sizes(lens.empty() ? 0 : lens[0]);
  std::vector<Tensor> rows;
  rows.reserve(batch_sizes.size());
  for (size_t t = 0; t < batch_sizes.size(); ++t) {
    int64_t count = 0;
    while (count < batch && lens[count] > static_cast<int64_t>(t)) ++count;
    batch_sizes[t] = count;
    rows.push_back(input[t].narrow(0, 0, count));
  }
  TORCH_CHECK(!rows.empty(), "pack_padded_sequence: the batch is empty.");
  return PackedSequence(at::cat(rows, 0), long_tensor(batch_sizes), sorted_indices);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> sizes =
      detail::checked_batch_sizes(sequence, "pad_packed_sequence");
  const int64_t max_len = static_cast<int64_t>(sizes.size()), batch = sizes[0];
  const int64_t steps = total_length.value_or(max_len);
  TORCH_CHECK(steps >= max_len, "pad_packed_sequence: total_length (", steps, ") must be at "
              "least the length of the longest sequence (", max_len, ").");
  const Tensor& data = sequence.data();
  std::vector<Tensor> padded_steps;
  padded_steps.reserve(steps);
  int64_t offset = 0;
  for (int64_t t = 0; t < max_len; ++t) {
    Tensor rows = data.narrow(0, offset, sizes[t]);
    if (sizes[t] < batch) rows = at::cat({rows, fill_rows(data, batch - sizes[t], padding_value)});
    padded_steps.push_back(rows);
    offset += sizes[t];
  }
  for (int64_t t = max_len; t < steps; ++t) {
    padded_steps.push_back(fill_rows(data, batch, padding_value));
  }
  Tensor padded = at::stack(padded_steps, 0);
  std::vector<int64_t> lens(batch, 0);
  for (int64_t size : sizes) {
    for (int64_t b = 0; b < size; ++b) ++lens[b];
  }
  Tensor lengths = long_tensor(lens);
  if (sequence.unsorted_indices().defined()) {
    padded = padded.index_select(1, sequence.unsorted_indices());
    lengths = lengths.index_select(0, sequence.unsorted_indices().to(at::kCPU));
  }
  if (batch_first) padded = padded.transpose(0, 1);
  return {padded, lengths};
}

Tensor pad_sequence(at::ArrayRef<Tensor> sequences, bool batch_first, double padding_value,
                    std::string_view padding_side) {
  TORCH_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences.");
  TORCH_CHECK(padding_side == "right" || padding_side == "left", "pad_sequence: padding_side "
              "must be \"right\" or \"left\", but got \"", std::string(padding_side), "\".");
  int64_t max_len = 0;
  for (size_t i = 0; i < sequences.size(); ++i) {
    const Tensor& s = sequences[i];
    TORCH_CHECK(s.defined() && s.dim() >= 1, "pad_sequence: sequence ", i, " must be a tensor "
                "of at least 1 dimension [L, *].");
    TORCH_CHECK(s.sizes().slice(1) == sequences[0].sizes().slice(1), "pad_sequence: every "
                "sequence must have the same trailing sizes, but sequence 0 has sizes ",
                sequences[0].sizes(), " and sequence ", i, " has ", s.sizes(), ".");
    max_len = std::max(max_len, s.size(0));
  }
  std::vector<Tensor> padded;
  padded.reserve(sequences.size());
  for (const Tensor& s : sequences) {
    const int64_t missing = max_len - s.size(0);
    if (missing == 0) {
      padded.push_back(s);
    } else if (padding_side == "right") {
      padded.push_back(at::cat({s, fill_rows(s, missing, padding_value)}));
    } else {
      padded.push_back(at::cat({fill_rows(s, missing, padding_value), s}));
    }
  }
  return at::stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(at::ArrayRef<Tensor> sequences, bool enforce_sorted) {
  TORCH_CHECK(!sequences.empty(), "pack_sequence: received an empty list of sequences.");
  std::vector<int64_t> lengths;
  lengths.reserve(sequences.size());
  for (const Tensor& s : sequences) lengths.push_back(s.defined() && s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), long_tensor(lengths),
                              /*batch_first=*/false, enforce_sorted);
}

}  // namespace rnn
}  // namespace utils
}  // namespace nn
}  // namespace torch
