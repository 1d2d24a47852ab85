// nn/module.h — torch::nn::Module: the base of every layer and model, as
// libtorch's (torch/nn/module.h).
//
//   struct NetImpl : torch::nn::Module {
//     NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {
//       scale = register_parameter("scale", torch::ones({2}));
//     }
//     torch::Tensor forward(torch::Tensor x) { return fc->forward(x) * scale; }
//     torch::nn::Linear fc;
//     torch::Tensor scale;
//   };
//   TORCH_MODULE(Net);   // Net holds a shared_ptr<NetImpl>
//
// A module owns named parameters (tensors that train), buffers (state that
// does not, e.g. BatchNorm's running mean) and child modules, each in an
// OrderedDict kept in registration order. The recursive accessors
// (named_parameters, ...) walk the tree depth first and join names with '.'
// ("fc.weight"). Modules are shared: children are held by shared_ptr, so a
// module may appear in several trees. Not thread-safe: do not register or
// move a module while another thread uses it (forward passes on one module
// from several threads are as safe as the ops they run).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"
#include "nn/ordered_dict.h"
#include "nn/pimpl.h"
#include "nn/types.h"

namespace torch {
namespace nn {

namespace detail {
struct CloneAccess;  // nn/cloneable.h
// The readable form of a mangled type name (typeid(T).name()).
std::string demangle(const char* mangled);
}  // namespace detail

// torch::nn::Module
class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction =
      std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  // A module named `name` (what pretty_print prints by default).
  explicit Module(std::string name);
  // A module named after its dynamic type, e.g. "NetImpl".
  Module();
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;
  virtual ~Module() = default;

  // The name given to the constructor, or the demangled dynamic type name.
  const std::string& name() const noexcept;

  // ---- walking the tree ----
  // Calls fn on this module and then on every descendant (depth first).
  void apply(const ModuleApplyFunction& fn);
  void apply(const ConstModuleApplyFunction& fn) const;
  // As above, with each module's dotted name ("" for this one, prefixed
  // by name_prefix).
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction& fn,
             const std::string& name_prefix = std::string()) const;
  // Calls fn with the shared_ptr of this module (which must be owned by
  // one) and of every descendant.
  void apply(const ModulePointerApplyFunction& fn) const;
  void apply(const NamedModulePointerApplyFunction& fn,
             const std::string& name_prefix = std::string()) const;

  // The defined parameters of this module and (recurse) its descendants.
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  // This module (include_self; it must then be owned by a shared_ptr) and
  // every descendant, depth first; a module shared twice appears once.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = std::string(), bool include_self = true) const;
  // The direct children.
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;

  // ---- mode ----
  // Sets training mode on this module and every descendant.
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  // ---- conversion ----
  // Moves or converts every parameter, gradient and buffer in place: the
  // tensors keep their identity (Tensor::set_data), so handles taken
  // before (e.g. by an optimizer) stay valid. A dtype change applies to
  // floating-point tensors only; integer buffers keep their dtype.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  // Resets the gradients of every parameter: to undefined (set_to_none) or
  // to zeros in place.
  virtual void zero_grad(bool set_to_none = true);

  // ---- downcasts ----
  // This module as ModuleType (a Module subclass or a ModuleHolder such as
  // Linear), or null when it is not one.
  template <typename ModuleType>
  typename ModuleType::ContainedType* as() noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType>
  const typename ModuleType::ContainedType* as() const noexcept {
    return as<typename ModuleType::ContainedType>();
  }
  template <typename ModuleType,
            typename = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  ModuleType* as() noexcept {
    return dynamic_cast<ModuleType*>(this);
  }
  template <typename ModuleType,
            typename = std::enable_if_t<std::is_base_of_v<Module, ModuleType>>>
  const ModuleType* as() const noexcept {
    return dynamic_cast<const ModuleType*>(this);
  }

  // ---- copying ----
  // torch::nn::Module::clone
  //
  // A deep copy of this module and its descendants, on `device` when
  // given. Only modules deriving from torch::nn::Cloneable<Derived>
  // (nn/cloneable.h; every built-in module but Sequential and ModuleList
  // does) can be
  // cloned; for others this throws and says so.
  virtual std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const;

  // ---- printing ----
  // Writes this module's one-line description (without children), e.g.
  // "torch::nn::Linear(in_features=4, out_features=2, bias=true)". The
  // default writes name().
  virtual void pretty_print(std::ostream& stream) const;
  // Whether a checkpoint may save this module (false for containers of
  // type-erased modules that have nothing of their own, as in libtorch).
  virtual bool is_serializable() const { return true; }

  // ---- registration ----
  // Registers `tensor` as parameter `name` and returns a reference to the
  // stored handle (valid until the next registration on this module: copy
  // it, `weight = register_parameter(...)`). requires_grad is set on it when it is defined; an
  // undefined tensor (e.g. an absent bias) is kept but skipped by
  // parameters(). The name must be non-empty, contain no '.', and not
  // name another parameter, buffer or submodule of this module.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  // Registers `tensor` as buffer `name` (state saved with the module that
  // does not train). Same name rules.
  Tensor& register_buffer(std::string name, Tensor tensor);
  // Registers `module` as child `name` and returns it. Same name rules.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module) {
    TORCH_CHECK(module != nullptr, "register_module: the submodule '", name,
                "' is null; construct it first (an empty ModuleHolder holds no module).");
    check_new_name("register_module", "Submodule", name);
    children_.insert(std::move(name), std::shared_ptr<Module>(module));
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              ModuleHolder<ModuleType> module_holder) {
    TORCH_CHECK(!module_holder.is_empty(), "register_module: the submodule '", name,
                "' is an empty ModuleHolder (constructed from nullptr); construct the "
                "module first.");
    return register_module(std::move(name), module_holder.ptr());
  }
  // Replaces the existing child `name` by `module` (keeping its position)
  // and returns it.
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             std::shared_ptr<ModuleType> module) {
    TORCH_CHECK(module != nullptr, "replace_module: the new submodule '", name,
                "' is null; construct it first.");
    children_[name] = std::shared_ptr<Module>(module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }
  // Removes the child `name`; throws when there is none.
  void unregister_module(const std::string& name);

 protected:
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
  friend std::ostream& operator<<(std::ostream& stream, const Module& module);
  friend struct detail::CloneAccess;

  // Makes this module a clone of `other` (a module of the same type); only
  // Cloneable implements it. See Note [How clone() copies a module].
  virtual void clone_(Module& other, const std::optional<Device>& device);

  // Throws unless `name` may name a new parameter, buffer or submodule.
  void check_new_name(const char* where, const char* what, const std::string& name) const;
  // Converts this module's own tensors with `convert` (no recursion).
  void convert_own_tensors(const std::function<Tensor(const Tensor&)>& convert);
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  std::shared_ptr<Module> shared_from_this_checked(const char* where) const;

  mutable std::string name_;
  bool is_training_ = true;
};

// Writes the module tree as libtorch does: the module's pretty_print, then
// its children indented, one "(name): ..." line each.
std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace nn
}  // namespace torch
