// nn/modules/rnn.h — the recurrent layers torch::nn::RNN, LSTM and GRU and
// their single-step cells RNNCell, LSTMCell and GRUCell, with their options.
//
//   torch::nn::LSTM lstm(torch::nn::LSTMOptions(8, 16).num_layers(2).batch_first(true));
//   auto [out, state] = lstm(x);              // x [N, L, 8] -> out [N, L, 16]
//   auto [h_n, c_n] = state;                  // each [2, N, 16]
//   torch::nn::GRUCell cell(8, 16);
//   torch::Tensor h = cell(x_t, h);           // one step: [N, 8], [N, 16] -> [N, 16]
//
// Everything is built from differentiable aten ops (matmul, addmm, sigmoid,
// tanh, chunk, stack), so autograd needs no derivative of its own; there is
// no fused kernel (one matmul per layer and direction for the inputs, one
// addmm per time step for the hidden state). Gate order and parameter names
// are libtorch's (LSTM: input, forget, cell, output; GRU: reset, update,
// new; `weight_ih_l0`, `bias_hh_l1_reverse`, ...), and every parameter
// starts from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
//
// Packed input: forward_with_packed_input takes a
// torch::nn::utils::rnn::PackedSequence (nn/modules/packed_sequence.h) and
// returns one; each step runs on the sequences still running, so h_n holds
// every sequence's state after its own last step (in the caller's order).
// Not supported: cuDNN's flat weights (flatten_parameters() does nothing).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "nn/arg.h"
#include "nn/enum.h"
#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/modules/packed_sequence.h"
#include "nn/pimpl.h"
#include "nn/types.h"

namespace torch {
namespace nn {

// ---- options ----
struct RNNOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(nonlinearity_t, nonlinearity) = torch::kTanh;
  TORCH_ARG(bool, bias) = true;
  // Input and output [N, L, *] instead of [L, N, *] (not h_0 / h_n).
  TORCH_ARG(bool, batch_first) = false;
  // Dropout on the outputs of every layer but the last, in training.
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
};

struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
  // > 0: h is projected to proj_size by weight_hr_l<k> [proj_size, hidden_size].
  TORCH_ARG(int64_t, proj_size) = 0;
};

struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
};

struct RNNCellOptions {
  using nonlinearity_t = std::variant<enumtype::kTanh, enumtype::kReLU>;
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(nonlinearity_t, nonlinearity) = torch::kTanh;
};

struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(bool, bias) = true;
};

namespace detail {
// What RNN, LSTM and GRU share: the options of all three and the
// parameters of every layer and direction.
struct RNNOptionsBase {
  using rnn_options_base_mode_t =
      std::variant<enumtype::kLSTM, enumtype::kGRU, enumtype::kRNN_TANH, enumtype::kRNN_RELU>;
  RNNOptionsBase(rnn_options_base_mode_t mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  TORCH_ARG(rnn_options_base_mode_t, mode);
  TORCH_ARG(int64_t, input_size);
  TORCH_ARG(int64_t, hidden_size);
  TORCH_ARG(int64_t, num_layers) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bidirectional) = false;
  TORCH_ARG(int64_t, proj_size) = 0;
};

class RNNImplBase : public Module {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_);
  // Registers fresh parameters from options_base and initializes them.
  void reset();
  // U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for every parameter.
  void reset_parameters();
  // libtorch packs the weights for cuDNN here; Ember has nothing to pack.
  void flatten_parameters() {}
  // The parameters in libtorch's order: per layer and direction,
  // weight_ih, weight_hh[, bias_ih, bias_hh][, weight_hr].
  std::vector<Tensor> all_weights() const;
  void pretty_print(std::ostream& stream) const override;

  RNNOptionsBase options_base;

 protected:
  // The name printed and used in error messages: "RNN", "LSTM" or "GRU".
  const char* name() const;
  // Runs every layer and direction over input [L, N, I] (time first,
  // batched). h0/c0: [layers * directions, N, H]; c0 only for LSTM.
  // Returns the output [L, N, directions * H], h_n and (LSTM) c_n.
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& h0,
                                         const Tensor& c0);
  // The same over packed rows: data [sum(batch_sizes), I], step t on the
  // first batch_sizes[t] rows of the state; h0/c0 [layers * directions,
  // batch_sizes[0], H]. Returns the output's rows [sum(batch_sizes),
  // directions * H], h_n and (LSTM) c_n in the packed (sorted) order.
  std::tuple<Tensor, Tensor, Tensor> run_packed(const Tensor& data,
                                                const std::vector<int64_t>& batch_sizes,
                                                const Tensor& h0, const Tensor& c0);
  // The batch sizes of a packed input, checked against input_size.
  std::vector<int64_t> check_packed(const utils::rnn::PackedSequence& input) const;
  // A given state [layers * directions, B, size] in the caller's order,
  // permuted to the packed order (or zeros).
  Tensor packed_initial_state(const Tensor& given, const utils::rnn::PackedSequence& input,
                              int64_t batch, int64_t size, const char* what) const;
  // A packed-order state [layers * directions, B, size] in the caller's order.
  static Tensor unsort_state(const Tensor& state, const utils::rnn::PackedSequence& input);
  // Checks the rank and feature size of a forward's input; returns
  // whether it is batched (3-d).
  bool check_input(const Tensor& input) const;
  // Checks a given initial state against [layers * directions, N, size]
  // (without N when unbatched), or makes zeros of that shape.
  Tensor initial_state(const Tensor& given, const Tensor& input, bool batched, int64_t size,
                       const char* what) const;
  // Time-first, batched view of input; and back for the output.
  Tensor to_time_batch(const Tensor& input, bool batched) const;
  Tensor from_time_batch(const Tensor& output, bool batched) const;
  // RNN's and GRU's forward and forward_with_packed_input (one state, h).
  std::tuple<Tensor, Tensor> forward_hidden_only(const Tensor& input, const Tensor& hx);
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_packed_hidden_only(
      const utils::rnn::PackedSequence& packed_input, const Tensor& hx);

  // flat_weights_[layer * directions + direction] = {w_ih, w_hh, b_ih, b_hh, w_hr}
  // (undefined where absent).
  std::vector<std::vector<Tensor>> flat_weights_;
};
}  // namespace detail

// torch::nn::RNNImpl — an Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)
// (relu with nonlinearity(torch::kReLU)).
class RNNImpl : public detail::CloneableAs<RNNImpl, detail::RNNImplBase> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size)
      : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options_);
  // input [L, N, I] ([N, L, I] with batch_first, [L, I] unbatched), hx
  // [layers * directions, N, H] (zeros if undefined) -> (output
  // [L, N, directions * H], h_n [layers * directions, N, H]).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  // packed_input's sequences through the layers -> (packed output, h_n).
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  RNNOptions options;
};
TORCH_MODULE(RNN);

// torch::nn::LSTMImpl — a long short-term memory layer stack:
//   i, f, g, o = σ, σ, tanh, σ of (W_ih x_t + b_ih + W_hh h_{t-1} + b_hh),
//   c_t = f c_{t-1} + i g,  h_t = o tanh(c_t) (times W_hr^T with proj_size).
class LSTMImpl : public detail::CloneableAs<LSTMImpl, detail::RNNImplBase> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options_);
  // input as RNN; hx_opt (h_0, c_0), zeros if absent -> (output, (h_n, c_n)).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input,
      std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMOptions options;
};
TORCH_MODULE(LSTM);

// torch::nn::GRUImpl — a gated recurrent unit layer stack:
//   r, z = σ(W_i{r,z} x_t + b_i{r,z} + W_h{r,z} h_{t-1} + b_h{r,z}),
//   n = tanh(W_in x_t + b_in + r (W_hn h_{t-1} + b_hn)),  h_t = (1 - z) n + z h_{t-1}.
class GRUImpl : public detail::CloneableAs<GRUImpl, detail::RNNImplBase> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size)
      : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options_);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  GRUOptions options;
};
TORCH_MODULE(GRU);

namespace detail {
// What the cells share: weight_ih [gates * H, I], weight_hh [gates * H, H],
// bias_ih and bias_hh [gates * H] (undefined without bias).
class RNNCellImplBase : public Module {
 public:
  RNNCellImplBase(const char* name, int64_t gates, int64_t input_size, int64_t hidden_size,
                  bool bias);
  void reset();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  Tensor weight_ih;
  Tensor weight_hh;
  Tensor bias_ih;
  Tensor bias_hh;

 protected:
  // Checks input [N, I] or [I]; returns whether it is batched.
  bool check_input(const Tensor& input) const;
  // hx checked against [N, H] ([H] unbatched), or zeros; always batched.
  Tensor state(const Tensor& hx, const Tensor& input, bool batched, const char* what) const;
  // Extra text for pretty_print (", nonlinearity=kReLU").
  virtual std::string extra_repr() const { return ""; }

  const char* name_;
  int64_t gates_, input_size_, hidden_size_;
  bool bias_;
};
}  // namespace detail

// torch::nn::RNNCellImpl — one step of RNN: input [N, I] ([I]), hx [N, H]
// ([H]; zeros if undefined) -> h' of hx's shape.
class RNNCellImpl : public detail::CloneableAs<RNNCellImpl, detail::RNNCellImplBase> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options_);
  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;

 protected:
  std::string extra_repr() const override;
};
TORCH_MODULE(RNNCell);

// torch::nn::LSTMCellImpl — one step of LSTM: (input, (h, c)) -> (h', c').
class LSTMCellImpl : public detail::CloneableAs<LSTMCellImpl, detail::RNNCellImplBase> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options_);
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMCellOptions options;
};
TORCH_MODULE(LSTMCell);

// torch::nn::GRUCellImpl — one step of GRU: (input, h) -> h'.
class GRUCellImpl : public detail::CloneableAs<GRUCellImpl, detail::RNNCellImplBase> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options_);
  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
};
TORCH_MODULE(GRUCell);

// Defined in rnn.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class detail::CloneableAs<RNNImpl, detail::RNNImplBase>;
extern template class detail::CloneableAs<LSTMImpl, detail::RNNImplBase>;
extern template class detail::CloneableAs<GRUImpl, detail::RNNImplBase>;
extern template class detail::CloneableAs<RNNCellImpl, detail::RNNCellImplBase>;
extern template class detail::CloneableAs<LSTMCellImpl, detail::RNNCellImplBase>;
extern template class detail::CloneableAs<GRUCellImpl, detail::RNNCellImplBase>;

}  // namespace nn
}  // namespace torch
