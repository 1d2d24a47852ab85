// nn/optim/optimizer.h — torch::optim::Optimizer, the base of every
// optimizer, with its parameter groups, options and per-parameter state.
//
// Use a concrete optimizer (SGD, Adam, AdamW in nn/optim/optim.h); derive
// from Optimizer only to write a new one.
//
//   torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1).momentum(0.9));
//   for (...) {
//     opt.zero_grad();
//     loss_of(batch).backward();
//     opt.step();
//   }
//   auto& o = static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options());
//   o.lr(o.lr() / 10);
//
// Names and behaviour are libtorch 1.13's (torch/optim/optimizer.h); see
// docs/optim.md for every difference. An optimizer is not thread-safe: one
// thread at a time may call its members.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/TensorImpl.h"

namespace torch {
namespace optim {

// torch::optim::OptimizerParamState
//
// The state an optimizer keeps for one parameter (e.g. SGD's momentum
// buffer). Concrete optimizers derive from OptimizerCloneableParamState.
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  // A deep copy of the fields (tensors are shared, as in libtorch).
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  // Ember extension: the state's fields as tensors, in a fixed order, for
  // Optimizer::named_state(). Integer fields are 0-dim int64 tensors;
  // undefined tensors are left out by the caller.
  virtual std::vector<std::pair<std::string, at::Tensor>> named_tensors() const;
};

// torch::optim::OptimizerCloneableParamState<Derived>
//
// Implements clone() for a state type by copying it.
template <typename Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// torch::optim::OptimizerOptions
//
// The hyper-parameters of one parameter group. get_lr()/set_lr() let a
// scheduler change the learning rate of any optimizer; the base versions
// throw, concrete options override them.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual double get_lr() const;
  virtual void set_lr(const double lr);
};

// torch::optim::OptimizerCloneableOptions<Derived>
//
// Implements clone() for an options type by copying it.
template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// torch::optim::OptimizerParamGroup
//
// Parameters that share options. A group made without options takes the
// optimizer's defaults when it is added. Copying a group copies its options
// and shares its tensors.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;
  // NOLINTNEXTLINE(google-explicit-constructor): libtorch converts implicitly
  OptimizerParamGroup(std::vector<at::Tensor> params);
  OptimizerParamGroup(std::vector<at::Tensor> params, std::unique_ptr<OptimizerOptions> options);

  bool has_options() const { return options_ != nullptr; }
  // Throws if the group has no options.
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<at::Tensor>& params() { return params_; }
  const std::vector<at::Tensor>& params() const { return params_; }

 protected:
  std::vector<at::Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

// torch::optim::Optimizer
//
// Holds parameter groups, each with its own options, and the state of each
// parameter, and updates the parameters in place in step(). Parameters must
// be defined leaf tensors that require grad, each in at most one group.
//
// The state is keyed by the parameter's TensorImpl (libtorch keys it by the
// TensorImpl's address printed as a string); a parameter has state once a
// step has updated it.
class Optimizer {
 public:
  using LossClosure = std::function<at::Tensor()>;
  using StateMap = std::unordered_map<c10::TensorImpl*, std::unique_ptr<OptimizerParamState>>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  Optimizer& operator=(Optimizer&&) = default;

  Optimizer(std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  // One group holding `parameters`, with the defaults as its options.
  Optimizer(std::vector<at::Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;

  // Adds a group; without options it gets a copy of the defaults. Throws if
  // a tensor is undefined, not a leaf, does not require grad, or is already
  // optimized (by this or an earlier group).
  void add_param_group(const OptimizerParamGroup& param_group);

  // Updates every parameter that has a gradient, in place and without
  // recording autograd history. If `closure` is given it is called first
  // with grad mode on (it typically zeroes the gradients, computes a loss and
  // calls backward) and its loss is returned; otherwise returns an undefined
  // tensor.
  virtual at::Tensor step(LossClosure closure = nullptr) = 0;

  // Resets the gradient of every parameter: to undefined (set_to_none, the
  // default, which frees the memory) or to zeros in place.
  void zero_grad(bool set_to_none = true);

  // The parameters of the first group (throws if there is none).
  const std::vector<at::Tensor>& parameters() const;
  std::vector<at::Tensor>& parameters();
  // The number of parameters over all groups.
  size_t size() const noexcept;

  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  StateMap& state() noexcept { return state_; }
  const StateMap& state() const noexcept { return state_; }

  // Ember extension (checkpoints): every state tensor with a stable name
  // "<group>.<index in group>.<field>", e.g. "0.3.momentum_buffer", in group,
  // parameter and field order. Tensors alias the live state (integer fields
  // are fresh 0-dim int64 tensors): save them before the next step.
  std::vector<std::pair<std::string, at::Tensor>> named_state() const;

  // Ember extension: replaces the whole state with copies of `named`, as
  // returned by named_state() of an optimizer of the same type over
  // parameters of the same shapes. Every name, shape and dtype is checked
  // before anything changes; on error the state is untouched.
  void load_named_state(const std::vector<std::pair<std::string, at::Tensor>>& named);

 protected:
  // Called by add_param_group with the group's options (after defaults are
  // applied); throws if they are of the wrong type or invalid. The base
  // accepts anything. Not called from the base constructor: a derived
  // constructor checks the groups it was given.
  virtual void check_group_options(const OptimizerOptions& options) const;

  // Builds the state of `param` (parameter `where`, e.g. "0.3") from the
  // fields of a checkpoint, taking them out of `fields`; throws on a missing
  // or unknown field. The base throws: it knows no state type.
  virtual std::unique_ptr<OptimizerParamState> param_state_from_fields(
      const OptimizerParamGroup& group, const at::Tensor& param, const std::string& where,
      std::map<std::string, at::Tensor>& fields) const;

  // For param_state_from_fields: removes `field` from `fields` and returns a
  // copy laid out like `param` after checking shape, dtype and device; an
  // undefined tensor when absent and not `required`.
  static at::Tensor take_tensor_field(std::map<std::string, at::Tensor>& fields,
                                      const std::string& field, const at::Tensor& param,
                                      const std::string& where, bool required);
  // Removes `field` (a 0-dim int64 tensor >= 0) and returns its value.
  static int64_t take_int_field(std::map<std::string, at::Tensor>& fields, const std::string& field,
                                const std::string& where);
  // For step(): throws unless `grad` has the shape, dtype and device of
  // `param` (parameter `index` of param group `group`). A gradient set by
  // hand through mutable_grad() is not checked anywhere else.
  static void check_grad(const at::Tensor& param, const at::Tensor& grad, const char* optimizer,
                         size_t group, size_t index);
  // Throws if `fields` is not empty (names the first unknown field).
  static void check_no_fields_left(const std::map<std::string, at::Tensor>& fields,
                                   const std::string& where, const char* known);

  std::vector<OptimizerParamGroup> param_groups_;
  StateMap state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

}  // namespace optim
}  // namespace torch
