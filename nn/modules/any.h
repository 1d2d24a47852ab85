// nn/modules/any.h — torch::nn::AnyModule: any module with a forward of
// tensors, behind one type (what Sequential stores).
//
//   torch::nn::AnyModule any(torch::nn::Linear(3, 4));
//   torch::Tensor y = any.forward(torch::ones({2, 3}));
//   torch::nn::AnyModule loss(torch::nn::MSELoss());
//   torch::Tensor l = loss.forward(y, torch::zeros({2, 4}));   // two arguments
//   auto linear = any.get<torch::nn::Linear>();                // typed access
//
// The module's forward must be a non-template member function (not
// overloaded) whose parameters are tensors (Tensor, const Tensor&) and
// whose result converts to a Tensor; other modules fail to compile with a
// static_assert. The call is checked: a wrong number of arguments throws.
// Unlike libtorch's AnyModule there is no AnyValue, so forwards taking or
// returning other types cannot be stored.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "nn/module.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

namespace detail {
template <typename T>
constexpr bool is_tensor_param_v = std::is_same_v<std::decay_t<T>, Tensor> &&
                                   (!std::is_lvalue_reference_v<T> ||
                                    std::is_const_v<std::remove_reference_t<T>>);

// Whether &M::forward names one non-template member function.
template <typename M, typename = void>
struct has_plain_forward : std::false_type {};
template <typename M>
struct has_plain_forward<M, std::void_t<decltype(&M::forward)>> : std::true_type {};
}  // namespace detail

// torch::nn::AnyModule
class AnyModule {
 public:
  // An empty AnyModule (forward throws).
  AnyModule() = default;
  // Stores `module` (shared).
  template <typename ModuleType>
  explicit AnyModule(std::shared_ptr<ModuleType> module) {
    static_assert(std::is_base_of_v<Module, ModuleType>,
                  "AnyModule: the type must derive from torch::nn::Module.");
    static_assert(detail::has_plain_forward<ModuleType>::value,
                  "AnyModule: the module needs one non-template, non-overloaded forward() "
                  "(e.g. Tensor forward(const Tensor&)); Sequential and ModuleList cannot "
                  "be stored, wrap them in a module with such a forward.");
    TORCH_CHECK(module != nullptr, "AnyModule: the module is null; construct it first.");
    caller_ = make_caller(module, &ModuleType::forward);
    type_info_ = &typeid(ModuleType);
    rebind_ = [](std::shared_ptr<Module> m) {
      std::shared_ptr<ModuleType> typed = std::dynamic_pointer_cast<ModuleType>(m);
      TORCH_CHECK(typed != nullptr, "AnyModule::clone: the clone of a ",
                  detail::demangle(typeid(ModuleType).name()), " is a ", m->name(),
                  "; its clone() must return its own type.");
      return AnyModule(std::move(typed));
    };
    module_ = std::move(module);
  }
  // Stores the module a holder (Linear, Conv2d, ...) shares.
  template <typename ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType>& module_holder)
      : AnyModule(module_holder.ptr()) {}
  // Stores a copy of `module`, moved into a new shared_ptr.
  template <typename ModuleType,
            typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<ModuleType>> &&
                                        !std::is_lvalue_reference_v<ModuleType>>>
  explicit AnyModule(ModuleType&& module)
      : AnyModule(std::make_shared<std::decay_t<ModuleType>>(std::move(module))) {}

  // Calls the module's forward with these tensors.
  template <typename... Tensors>
  Tensor forward(Tensors&&... arguments) {
    check_not_empty("forward");
    std::array<Tensor, sizeof...(Tensors)> args{Tensor(std::forward<Tensors>(arguments))...};
    return caller_(args.data(), args.size());
  }
  // libtorch's typed form; the result is always a Tensor here.
  template <typename ReturnType, typename... Tensors>
  ReturnType forward(Tensors&&... arguments) {
    static_assert(std::is_same_v<ReturnType, Tensor>,
                  "AnyModule::forward<T>: Ember's AnyModule returns Tensor only.");
    return forward(std::forward<Tensors>(arguments)...);
  }

  // The stored module, as a Module or (checked) as ModuleType.
  std::shared_ptr<Module> ptr() const {
    check_not_empty("ptr");
    return module_;
  }
  template <typename T, typename ContainedType = typename T::ContainedType>
  std::shared_ptr<ContainedType> ptr() const {
    return ptr<ContainedType>();
  }
  template <typename T, typename = std::enable_if_t<std::is_base_of_v<Module, T>>>
  std::shared_ptr<T> ptr() const {
    check_type<T>("ptr");
    return std::static_pointer_cast<T>(module_);
  }
  // The stored module as T (a Module subclass: a reference; a holder type
  // such as Linear: a holder sharing it).
  template <typename T, typename = std::enable_if_t<std::is_base_of_v<Module, T>>>
  T& get() {
    check_type<T>("get");
    return *static_cast<T*>(module_.get());
  }
  template <typename T, typename ContainedType = typename T::ContainedType>
  T get() const {
    return T(ptr<ContainedType>());
  }

  // A deep copy of the stored module (Module::clone), in a new AnyModule.
  AnyModule clone(const std::optional<Device>& device = std::nullopt) const {
    check_not_empty("clone");
    return rebind_(module_->clone(device));
  }

  const std::type_info& type_info() const {
    check_not_empty("type_info");
    return *type_info_;
  }
  bool is_empty() const noexcept { return module_ == nullptr; }

 private:
  using Caller = std::function<Tensor(const Tensor*, size_t)>;

  template <typename M, typename R, typename C, typename... Args>
  static Caller make_caller(const std::shared_ptr<M>& module, R (C::*)(Args...)) {
    return make_caller_impl<M, R, Args...>(module);
  }
  template <typename M, typename R, typename C, typename... Args>
  static Caller make_caller(const std::shared_ptr<M>& module, R (C::*)(Args...) const) {
    return make_caller_impl<M, R, Args...>(module);
  }
  template <typename M, typename R, typename... Args>
  static Caller make_caller_impl(const std::shared_ptr<M>& module) {
    static_assert((detail::is_tensor_param_v<Args> && ...),
                  "AnyModule: every parameter of forward() must be a Tensor (by value or "
                  "const reference).");
    static_assert(std::is_convertible_v<R, Tensor>,
                  "AnyModule: forward() must return a Tensor.");
    // module_ owns the module for as long as any copy of the callable
    // exists (they are copied together), so a raw pointer is enough.
    M* raw = module.get();
    return [raw](const Tensor* args, size_t count) -> Tensor {
      TORCH_CHECK(count == sizeof...(Args), raw->name(), "'s forward() expects ",
                  sizeof...(Args), " argument(s), but received ", count, ".");
      return invoke(raw, args, std::index_sequence_for<Args...>{});
    };
  }
  template <typename M, size_t... I>
  static Tensor invoke(M* module, const Tensor* args, std::index_sequence<I...>) {
    return module->forward(args[I]...);
  }

  void check_not_empty(const char* where) const {
    TORCH_CHECK(module_ != nullptr, "AnyModule::", where,
                ": this AnyModule is empty; assign a module to it first.");
  }
  template <typename T>
  void check_type(const char* where) const {
    check_not_empty(where);
    TORCH_CHECK(*type_info_ == typeid(T), "AnyModule::", where, ": attempted to cast module of "
                "type ", module_->name(), " to type ", detail::demangle(typeid(T).name()),
                "; ask for the stored type (see type_info()).");
  }

  std::shared_ptr<Module> module_;
  Caller caller_;
  // Wraps a clone of module_ (a Module of the same type) as this type.
  std::function<AnyModule(std::shared_ptr<Module>)> rebind_;
  const std::type_info* type_info_ = nullptr;
};

// torch::nn::NamedAnyModule — a name and a module, to build a Sequential
// with chosen names: Sequential({{"conv", Conv2d(...)}, {"relu", ReLU()}}).
class NamedAnyModule {
 public:
  template <typename ModuleType>
  NamedAnyModule(std::string name, std::shared_ptr<ModuleType> module)
      : name_(std::move(name)), module_(std::move(module)) {}
  template <typename ModuleType>
  NamedAnyModule(std::string name, const ModuleHolder<ModuleType>& module_holder)
      : name_(std::move(name)), module_(module_holder) {}
  template <typename ModuleType,
            typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<ModuleType>> &&
                                        !std::is_lvalue_reference_v<ModuleType>>>
  NamedAnyModule(std::string name, ModuleType&& module)
      : name_(std::move(name)), module_(std::move(module)) {}
  NamedAnyModule(std::string name, AnyModule any_module)
      : name_(std::move(name)), module_(std::move(any_module)) {}

  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace nn
}  // namespace torch
