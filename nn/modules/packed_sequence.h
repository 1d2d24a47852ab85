// nn/modules/packed_sequence.h — torch::nn::utils::rnn::PackedSequence and
// pack_padded_sequence, pad_packed_sequence, pack_sequence, pad_sequence,
// as libtorch's torch/nn/utils/rnn.h. RNN, LSTM and GRU take a
// PackedSequence through forward_with_packed_input (nn/modules/rnn.h).
//
//   namespace rnn_utils = torch::nn::utils::rnn;
//   auto packed = rnn_utils::pack_padded_sequence(padded, lengths, /*batch_first=*/true,
//                                                 /*enforce_sorted=*/false);
//   auto [out, state] = lstm->forward_with_packed_input(packed);
//   auto [unpacked, out_lengths] = rnn_utils::pad_packed_sequence(out, /*batch_first=*/true);
//
// A PackedSequence holds the valid time steps of a batch of sequences of
// different lengths, time step by time step: data [sum(lengths), *] holds
// step 0 of every sequence, then step 1 of those still running, ...;
// batch_sizes [max length] (int64, CPU) says how many sequences each step
// has. Sequences are ordered longest first; sorted_indices maps that order
// to the caller's (undefined when the input was already sorted) and
// unsorted_indices is its inverse. Packing and padding are composites of
// differentiable ops (narrow, cat, index_select), so gradients flow
// through them.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "nn/types.h"

namespace torch {
namespace nn {
namespace utils {
namespace rnn {

// Inverse of a permutation (a 1-d int64 tensor), undefined for undefined.
Tensor invert_permutation(const Tensor& permutation);

// torch::nn::utils::rnn::PackedSequence
class PackedSequence {
 public:
  PackedSequence() = default;
  // unsorted_indices defaults to the inverse of sorted_indices.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  // data moved to `options`' device/dtype (batch_sizes stay on the CPU;
  // the index tensors follow the data's device).
  PackedSequence to(const at::TensorOptions& options) const;
  PackedSequence cpu() const;
  bool is_cuda() const { return data_.device().is_cuda(); }

 private:
  Tensor data_;
  Tensor batch_sizes_;
  Tensor sorted_indices_;
  Tensor unsorted_indices_;
};

// Packs input [T, B, *] ([B, T, *] with batch_first) whose sequence b has
// lengths[b] valid steps (lengths: 1-d int64 on the CPU, each in
// [1, T]). enforce_sorted: lengths must be non-increasing; otherwise
// they are sorted here and the order is kept in sorted_indices.
PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                    bool enforce_sorted = true);

// The inverse of pack_padded_sequence: (padded [T, B, *] or [B, T, *],
// lengths [B] int64) in the caller's batch order; T is total_length if
// given (at least the longest sequence), else the longest length.
std::tuple<Tensor, Tensor> pad_packed_sequence(
    const PackedSequence& sequence, bool batch_first = false, double padding_value = 0.0,
    std::optional<int64_t> total_length = std::nullopt);

// Stacks sequences [L_i, *] into [max L, B, *] ([B, max L, *] with
// batch_first), filling with padding_value on the right (padding_side
// "right") or the left ("left").
Tensor pad_sequence(at::ArrayRef<Tensor> sequences, bool batch_first = false,
                    double padding_value = 0.0, std::string_view padding_side = "right");

// pack_padded_sequence of pad_sequence(sequences), lengths from their sizes.
PackedSequence pack_sequence(at::ArrayRef<Tensor> sequences, bool enforce_sorted = true);

namespace detail {
// batch_sizes as integers, checked against data (non-increasing, positive,
// summing to data.size(0)); `where` names the caller in messages.
std::vector<int64_t> checked_batch_sizes(const PackedSequence& sequence, const char* where);
}  // namespace detail

}  // namespace rnn
}  // namespace utils
}  // namespace nn
}  // namespace torch
