#include "nn/modules/rnn.h"

#include <cmath>

#include "c10/util/Exception.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {
namespace {

constexpr int64_t kGatesLSTM = 4;
constexpr int64_t kGatesGRU = 3;

// x [N, K] times w [G, K] transposed, plus b [G] when defined.
Tensor project(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? at::addmm(b, x, w.t()) : at::mm(x, w.t());
}

// The steps, each from the input's projection gi [N, gates * H] (bias
// included) and the previous state. See Note [Gate layout] below.
// ~~~~
// Note [Gate layout]
// The gates of one step are the column blocks of one projection, in
// libtorch's order: LSTM i, f, g, o; GRU r, z, n; so the parameters of a
// libtorch checkpoint mean the same thing here.
Tensor rnn_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh,
                bool relu) {
  const Tensor pre = gi + project(h, w_hh, b_hh);
  return relu ? at::relu(pre) : at::tanh(pre);
}

std::tuple<Tensor, Tensor> lstm_step(const Tensor& gi, const Tensor& h, const Tensor& c,
                                     const Tensor& w_hh, const Tensor& b_hh,
                                     const Tensor& w_hr) {
  const auto gates = (gi + project(h, w_hh, b_hh)).chunk(kGatesLSTM, 1);
  const Tensor i = at::sigmoid(gates[0]);
  const Tensor f = at::sigmoid(gates[1]);
  const Tensor g = at::tanh(gates[2]);
  const Tensor o = at::sigmoid(gates[3]);
  Tensor c_next = f * c + i * g;
  Tensor h_next = o * at::tanh(c_next);
  if (w_hr.defined()) h_next = at::mm(h_next, w_hr.t());
  return {h_next, c_next};
}

Tensor gru_step(const Tensor& gi, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  const auto i = gi.chunk(kGatesGRU, 1);
  const auto hh = project(h, w_hh, b_hh).chunk(kGatesGRU, 1);
  const Tensor r = at::sigmoid(i[0] + hh[0]);
  const Tensor z = at::sigmoid(i[1] + hh[1]);
  const Tensor n = at::tanh(i[2] + r * hh[2]);
  return n + z * (h - n);  // (1 - z) n + z h
}

template <typename Options>
detail::RNNOptionsBase base_options(detail::RNNOptionsBase::rnn_options_base_mode_t mode,
                                    const Options& o) {
  return detail::RNNOptionsBase(mode, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

}  // namespace

namespace detail {

RNNImplBase::RNNImplBase(const RNNOptionsBase& options_) : options_base(options_) { reset(); }

const char* RNNImplBase::name() const {
  switch (options_base.mode().index()) {
    case 0: return "LSTM";
    case 1: return "GRU";
    default: return "RNN";
  }
}

void RNNImplBase::reset() {
  const auto& o = options_base;
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(o.mode());
  TORCH_CHECK(o.input_size() > 0 && o.hidden_size() > 0, name(), ": input_size and hidden_size "
              "must be positive, but got input_size=", o.input_size(), ", hidden_size=",
              o.hidden_size(), ".");
  TORCH_CHECK(o.num_layers() > 0, name(), ": num_layers must be positive, but got ",
              o.num_layers(), ".");
  TORCH_CHECK(o.dropout() >= 0 && o.dropout() <= 1, name(), ": dropout must be a probability "
              "between 0 and 1, but got ", o.dropout(), ".");
  TORCH_CHECK(o.proj_size() >= 0 && (o.proj_size() == 0 || lstm), name(), ": proj_size must "
              "be 0 (only LSTM projects its output), but got ", o.proj_size(), ".");
  TORCH_CHECK(o.proj_size() < o.hidden_size(), name(), ": proj_size (", o.proj_size(),
              ") must be smaller than hidden_size (", o.hidden_size(), ").");
  if (o.dropout() > 0 && o.num_layers() == 1) {
    TORCH_WARN(name(), ": dropout=", o.dropout(), " and num_layers=1: dropout applies between "
               "layers only, so it has no effect.");
  }
  const int64_t gates = lstm ? kGatesLSTM
                        : std::holds_alternative<enumtype::kGRU>(o.mode()) ? kGatesGRU : 1;
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t out_size = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  const int64_t gate_size = gates * o.hidden_size();
  flat_weights_.clear();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    const int64_t layer_input = layer == 0 ? o.input_size() : out_size * directions;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const std::string suffix =
          "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      std::vector<Tensor> w(5);
      w[0] = register_parameter("weight_ih" + suffix, at::empty({gate_size, layer_input}));
      w[1] = register_parameter("weight_hh" + suffix, at::empty({gate_size, out_size}));
      if (o.bias()) {
        w[2] = register_parameter("bias_ih" + suffix, at::empty({gate_size}));
        w[3] = register_parameter("bias_hh" + suffix, at::empty({gate_size}));
      }
      if (o.proj_size() > 0) {
        w[4] = register_parameter("weight_hr" + suffix,
                                  at::empty({o.proj_size(), o.hidden_size()}));
      }
      flat_weights_.push_back(std::move(w));
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_base.hidden_size()));
  for (auto& p : parameters()) init::uniform_(p, -bound, bound);
}

std::vector<Tensor> RNNImplBase::all_weights() const {
  std::vector<Tensor> out;
  for (const auto& w : flat_weights_) {
    for (const auto& t : w) {
      if (t.defined()) out.push_back(t);
    }
  }
  return out;
}

void RNNImplBase::pretty_print(std::ostream& stream) const {
  const auto& o = options_base;
  stream << std::boolalpha << "torch::nn::" << name() << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers()
         << ", bias=" << o.bias() << ", batch_first=" << o.batch_first()
         << ", dropout=" << o.dropout() << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
}

bool RNNImplBase::check_input(const Tensor& input) const {
  TORCH_CHECK(input.defined(), name(), ": the input is an undefined tensor.");
  TORCH_CHECK(input.dim() == 2 || input.dim() == 3, name(), ": expected a 2-d (unbatched) or "
              "3-d (batched) input, but got a ", input.dim(), "-d input of sizes ",
              input.sizes(), ".");
  TORCH_CHECK(input.size(-1) == options_base.input_size(), name(), ": input.size(-1) must be "
              "equal to input_size. Expected ", options_base.input_size(), ", got ",
              input.size(-1), ".");
  const int64_t time_dim = input.dim() == 3 && options_base.batch_first() ? 1 : 0;
  TORCH_CHECK(input.size(time_dim) > 0, name(), ": the input sequence is empty (sizes ",
              input.sizes(), "); give at least one time step.");
  return input.dim() == 3;
}

Tensor RNNImplBase::initial_state(const Tensor& given, const Tensor& input, bool batched,
                                  int64_t size, const char* what) const {
  const int64_t layers = options_base.num_layers() * (options_base.bidirectional() ? 2 : 1);
  std::vector<int64_t> expected{layers, size};
  if (batched) expected.insert(expected.begin() + 1, input.size(options_base.batch_first() ? 0 : 1));
  if (!given.defined()) {
    const Tensor zeros = at::zeros(expected, input.options());
    return batched ? zeros : zeros.unsqueeze(1);
  }
  TORCH_CHECK(given.sizes() == c10::IntArrayRef(expected), name(), ": expected ", what,
              " of sizes ", c10::IntArrayRef(expected), ", but got ", given.sizes(),
              (batched ? "; it is [num_layers * num_directions, batch, size] (not batch-first)."
                       : "; for an unbatched input it is [num_layers * num_directions, size]."));
  return batched ? given : given.unsqueeze(1);
}

Tensor RNNImplBase::to_time_batch(const Tensor& input, bool batched) const {
  if (!batched) return input.unsqueeze(1);
  return options_base.batch_first() ? input.transpose(0, 1) : input;
}

Tensor RNNImplBase::from_time_batch(const Tensor& output, bool batched) const {
  if (!batched) return output.squeeze(1);
  return options_base.batch_first() ? output.transpose(0, 1) : output;
}

std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run(const Tensor& input, const Tensor& h0,
                                                    const Tensor& c0) {
  // Time-major [L, N, I] is the packed layout with every batch size N.
  const int64_t steps = input.size(0), batch = input.size(1);
  auto [output, h_n, c_n] = run_packed(input.reshape({steps * batch, input.size(2)}),
                                       std::vector<int64_t>(steps, batch), h0, c0);
  return {output.reshape({steps, batch, output.size(1)}), h_n, c_n};
}

// Note [Packed steps]
// ~~~~~~~~~~~~~~~~~~~
// Step t updates the first batch_sizes[t] rows of the state (sequences are
// longest first) and leaves the others as they are: in the forward
// direction a finished sequence keeps its last state (its h_n), in the
// reverse direction a sequence that has not started yet keeps h_0 until
// its last step comes. A padded batch is the case of equal batch sizes.
std::tuple<Tensor, Tensor, Tensor> RNNImplBase::run_packed(const Tensor& data,
                                                           const std::vector<int64_t>& batch_sizes,
                                                           const Tensor& h0, const Tensor& c0) {
  const auto& o = options_base;
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(o.mode());
  const bool gru = std::holds_alternative<enumtype::kGRU>(o.mode());
  const bool relu = std::holds_alternative<enumtype::kRNN_RELU>(o.mode());
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t steps = static_cast<int64_t>(batch_sizes.size());
  std::vector<int64_t> offsets(steps, 0);
  for (int64_t t = 1; t < steps; ++t) offsets[t] = offsets[t - 1] + batch_sizes[t - 1];
  // The first `rows` rows of a state, and a state with them replaced.
  auto head = [](const Tensor& state, int64_t rows) {
    return rows == state.size(0) ? state : state.narrow(0, 0, rows);
  };
  auto replace_head = [](const Tensor& state, const Tensor& rows) {
    const int64_t n = state.size(0), r = rows.size(0);
    return r == n ? rows : at::cat({rows, state.narrow(0, r, n - r)}, 0);
  };
  Tensor layer_input = data;
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<Tensor> direction_outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t k = layer * directions + direction;
      const auto& w = flat_weights_[k];
      // The input's projection for every step at once: [rows, gates * H].
      Tensor gi = at::matmul(layer_input, w[0].t());
      if (w[2].defined()) gi = gi + w[2];
      Tensor h = h0[k];
      Tensor c = lstm ? c0[k] : Tensor();
      std::vector<Tensor> outputs(steps);
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = direction == 1 ? steps - 1 - s : s;
        const int64_t rows = batch_sizes[t];
        const Tensor gi_t = gi.narrow(0, offsets[t], rows);
        Tensor h_t;
        if (lstm) {
          Tensor c_t;
          std::tie(h_t, c_t) = lstm_step(gi_t, head(h, rows), head(c, rows), w[1], w[3], w[4]);
          c = replace_head(c, c_t);
        } else if (gru) {
          h_t = gru_step(gi_t, head(h, rows), w[1], w[3]);
        } else {
          h_t = rnn_step(gi_t, head(h, rows), w[1], w[3], relu);
        }
        h = replace_head(h, h_t);
        outputs[t] = h_t;
      }
      direction_outputs.push_back(at::cat(outputs, 0));
      h_n.push_back(h);
      if (lstm) c_n.push_back(c);
    }
    layer_input = directions == 2 ? at::cat(direction_outputs, 1) : direction_outputs[0];
    if (o.dropout() > 0 && layer + 1 < o.num_layers()) {
      layer_input = functional::dropout(
          layer_input, functional::DropoutFuncOptions().p(o.dropout()).training(is_training()));
    }
  }
  return {layer_input, at::stack(h_n, 0), lstm ? at::stack(c_n, 0) : Tensor()};
}

std::vector<int64_t> RNNImplBase::check_packed(const utils::rnn::PackedSequence& input) const {
  const std::string where = std::string(name()) + "::forward_with_packed_input";
  std::vector<int64_t> sizes = utils::rnn::detail::checked_batch_sizes(input, where.c_str());
  TORCH_CHECK(input.data().dim() == 2 && input.data().size(1) == options_base.input_size(),
              where, ": expected packed data [rows, input_size=", options_base.input_size(),
              "], but got sizes ", input.data().sizes(), ".");
  return sizes;
}

Tensor RNNImplBase::packed_initial_state(const Tensor& given,
                                         const utils::rnn::PackedSequence& input, int64_t batch,
                                         int64_t size, const char* what) const {
  const int64_t layers = options_base.num_layers() * (options_base.bidirectional() ? 2 : 1);
  const std::vector<int64_t> expected{layers, batch, size};
  if (!given.defined()) return at::zeros(expected, input.data().options());
  TORCH_CHECK(given.sizes() == c10::IntArrayRef(expected), name(), ": expected ", what,
              " of sizes ", c10::IntArrayRef(expected), " for this packed batch, but got ",
              given.sizes(), ".");
  const Tensor& order = input.sorted_indices();
  return order.defined() ? given.index_select(1, order) : given;
}

Tensor RNNImplBase::unsort_state(const Tensor& state, const utils::rnn::PackedSequence& input) {
  const Tensor& order = input.unsorted_indices();
  return order.defined() ? state.index_select(1, order) : state;
}

std::tuple<Tensor, Tensor> RNNImplBase::forward_hidden_only(const Tensor& input,
                                                            const Tensor& hx) {
  const bool batched = check_input(input);
  const Tensor h0 = initial_state(hx, input, batched, options_base.hidden_size(), "h_0");
  auto [output, h_n, unused] = run(to_time_batch(input, batched), h0, Tensor());
  return {from_time_batch(output, batched), batched ? h_n : h_n.squeeze(1)};
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImplBase::forward_packed_hidden_only(
    const utils::rnn::PackedSequence& packed_input, const Tensor& hx) {
  const std::vector<int64_t> sizes = check_packed(packed_input);
  const Tensor h0 =
      packed_initial_state(hx, packed_input, sizes[0], options_base.hidden_size(), "h_0");
  auto [output, h_n, unused] = run_packed(packed_input.data(), sizes, h0, Tensor());
  return {utils::rnn::PackedSequence(output, packed_input.batch_sizes(),
                                     packed_input.sorted_indices(),
                                     packed_input.unsorted_indices()),
          unsort_state(h_n, packed_input)};
}

}  // namespace detail

RNNImpl::RNNImpl(const RNNOptions& options_)
    : CloneableAs(base_options(
          std::holds_alternative<enumtype::kTanh>(options_.nonlinearity())
              ? detail::RNNOptionsBase::rnn_options_base_mode_t(torch::kRNN_TANH)
              : detail::RNNOptionsBase::rnn_options_base_mode_t(torch::kRNN_RELU),
          options_)),
      options(options_) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  return forward_hidden_only(input, hx);
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  return forward_packed_hidden_only(packed_input, hx);
}

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : CloneableAs(base_options(torch::kLSTM, options_).proj_size(options_.proj_size())),
      options(options_) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const bool batched = check_input(input);
  const int64_t out_size =
      options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
  Tensor h_given, c_given;
  if (hx_opt) std::tie(h_given, c_given) = *hx_opt;
  const Tensor h0 = initial_state(h_given, input, batched, out_size, "h_0");
  const Tensor c0 = initial_state(c_given, input, batched, options_base.hidden_size(), "c_0");
  auto [output, h_n, c_n] = run(to_time_batch(input, batched), h0, c0);
  if (!batched) {
    h_n = h_n.squeeze(1);
    c_n = c_n.squeeze(1);
  }
  return {from_time_batch(output, batched), {h_n, c_n}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>>
LSTMImpl::forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                    std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const std::vector<int64_t> sizes = check_packed(packed_input);
  const int64_t out_size =
      options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
  Tensor h_given, c_given;
  if (hx_opt) std::tie(h_given, c_given) = *hx_opt;
  const Tensor h0 = packed_initial_state(h_given, packed_input, sizes[0], out_size, "h_0");
  const Tensor c0 =
      packed_initial_state(c_given, packed_input, sizes[0], options_base.hidden_size(), "c_0");
  auto [output, h_n, c_n] = run_packed(packed_input.data(), sizes, h0, c0);
  return {utils::rnn::PackedSequence(output, packed_input.batch_sizes(),
                                     packed_input.sorted_indices(),
                                     packed_input.unsorted_indices()),
          {unsort_state(h_n, packed_input), unsort_state(c_n, packed_input)}};
}

GRUImpl::GRUImpl(const GRUOptions& options_)
    : CloneableAs(base_options(torch::kGRU, options_)), options(options_) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  return forward_hidden_only(input, hx);
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  return forward_packed_hidden_only(packed_input, hx);
}

// ---- cells ----

namespace detail {

RNNCellImplBase::RNNCellImplBase(const char* name, int64_t gates, int64_t input_size,
                                 int64_t hidden_size, bool bias)
    : name_(name), gates_(gates), input_size_(input_size), hidden_size_(hidden_size),
      bias_(bias) {
  reset();
}

void RNNCellImplBase::reset() {
  TORCH_CHECK(input_size_ > 0 && hidden_size_ > 0, name_, ": input_size and hidden_size must "
              "be positive, but got input_size=", input_size_, ", hidden_size=", hidden_size_,
              ".");
  weight_ih = register_parameter("weight_ih", at::empty({gates_ * hidden_size_, input_size_}));
  weight_hh = register_parameter("weight_hh", at::empty({gates_ * hidden_size_, hidden_size_}));
  bias_ih = register_parameter("bias_ih", bias_ ? at::empty({gates_ * hidden_size_}) : Tensor(),
                               bias_);
  bias_hh = register_parameter("bias_hh", bias_ ? at::empty({gates_ * hidden_size_}) : Tensor(),
                               bias_);
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size_));
  for (auto& p : parameters()) init::uniform_(p, -bound, bound);
}

void RNNCellImplBase::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::" << name_ << "(" << input_size_ << ", " << hidden_size_;
  if (!bias_) stream << ", bias=false";
  stream << extra_repr() << ")";
}

bool RNNCellImplBase::check_input(const Tensor& input) const {
  TORCH_CHECK(input.defined(), name_, ": the input is an undefined tensor.");
  TORCH_CHECK(input.dim() == 1 || input.dim() == 2, name_, ": expected a 1-d (unbatched) or "
              "2-d (batched) input, but got a ", input.dim(), "-d input of sizes ",
              input.sizes(), ".");
  TORCH_CHECK(input.size(-1) == input_size_, name_, ": input has inconsistent input_size: got ",
              input.size(-1), ", expected ", input_size_, ".");
  return input.dim() == 2;
}

Tensor RNNCellImplBase::state(const Tensor& hx, const Tensor& input, bool batched,
                              const char* what) const {
  std::vector<int64_t> expected{hidden_size_};
  if (batched) expected.insert(expected.begin(), input.size(0));
  if (!hx.defined()) return at::zeros({batched ? input.size(0) : 1, hidden_size_}, input.options());
  TORCH_CHECK(hx.sizes() == c10::IntArrayRef(expected), name_, ": expected ", what,
              " of sizes ", c10::IntArrayRef(expected), " (the input's batch and hidden_size), "
              "but got ", hx.sizes(), ".");
  return batched ? hx : hx.unsqueeze(0);
}

}  // namespace detail

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : CloneableAs("RNNCell", 1, options_.input_size(), options_.hidden_size(),
                              options_.bias()),
      options(options_) {}

std::string RNNCellImpl::extra_repr() const {
  return std::holds_alternative<enumtype::kReLU>(options.nonlinearity()) ? ", nonlinearity=kReLU"
                                                                         : "";
}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  const bool batched = check_input(input);
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor h = state(hx, input, batched, "hx");
  Tensor out = rnn_step(project(x, weight_ih, bias_ih), h, weight_hh, bias_hh,
                        std::holds_alternative<enumtype::kReLU>(options.nonlinearity()));
  return batched ? out : out.squeeze(0);
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : CloneableAs("LSTMCell", kGatesLSTM, options_.input_size(),
                              options_.hidden_size(), options_.bias()),
      options(options_) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const bool batched = check_input(input);
  const Tensor x = batched ? input : input.unsqueeze(0);
  Tensor h_given, c_given;
  if (hx_opt) std::tie(h_given, c_given) = *hx_opt;
  const Tensor h = state(h_given, input, batched, "h");
  const Tensor c = state(c_given, input, batched, "c");
  auto [h_next, c_next] =
      lstm_step(project(x, weight_ih, bias_ih), h, c, weight_hh, bias_hh, Tensor());
  if (!batched) return {h_next.squeeze(0), c_next.squeeze(0)};
  return {h_next, c_next};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : CloneableAs("GRUCell", kGatesGRU, options_.input_size(),
                              options_.hidden_size(), options_.bias()),
      options(options_) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  const bool batched = check_input(input);
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor h = state(hx, input, batched, "hx");
  Tensor out = gru_step(project(x, weight_ih, bias_ih), h, weight_hh, bias_hh);
  return batched ? out : out.squeeze(0);
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class detail::CloneableAs<RNNImpl, detail::RNNImplBase>;
template class detail::CloneableAs<LSTMImpl, detail::RNNImplBase>;
template class detail::CloneableAs<GRUImpl, detail::RNNImplBase>;
template class detail::CloneableAs<RNNCellImpl, detail::RNNCellImplBase>;
template class detail::CloneableAs<LSTMCellImpl, detail::RNNCellImplBase>;
template class detail::CloneableAs<GRUCellImpl, detail::RNNCellImplBase>;

}  // namespace nn
}  // namespace torch
