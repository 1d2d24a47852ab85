// nn/pimpl.h — torch::nn::ModuleHolder and TORCH_MODULE: the shared-pointer
// handles (Linear, Conv2d, Net...) that wrap module implementations
// (LinearImpl, ...), as libtorch's torch/nn/pimpl.h.
//
//   struct NetImpl : torch::nn::Module { ... };
//   TORCH_MODULE(Net);         // class Net : ModuleHolder<NetImpl>
//   Net net;                   // default-constructs a NetImpl
//   Net none{nullptr};         // empty; assign later
//   net->forward(x);  net(x);  // the Impl's members, forward via operator()
//
// Copying a holder shares the module (reference semantics, like Python).
// Accessing an empty holder throws.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "c10/util/Exception.h"

namespace torch {
namespace detail {
// A base of every ModuleHolder, to recognise holders in templates.
struct ModuleHolderIndicator {};

template <typename T>
using is_module_holder = std::is_base_of<ModuleHolderIndicator, std::decay_t<T>>;

template <typename T, typename C, typename = void>
struct is_module_holder_of_impl : std::false_type {};
template <typename T, typename C>
struct is_module_holder_of_impl<T, C, std::void_t<typename std::decay_t<T>::ContainedType>>
    : std::is_same<typename std::decay_t<T>::ContainedType, C> {};
template <typename T, typename C>
using is_module_holder_of = is_module_holder_of_impl<T, C>;
}  // namespace detail

namespace nn {

// torch::nn::ModuleHolder<Contained>
template <typename Contained>
class ModuleHolder : torch::detail::ModuleHolderIndicator {
 public:
  using ContainedType = Contained;

  // Default-constructs the module (modules without a default constructor
  // must be built from arguments or nullptr).
  ModuleHolder() : impl_(default_construct()) {
    static_assert(std::is_default_constructible_v<Contained>,
                  "ModuleHolder: this module has no default constructor; pass its "
                  "arguments, or nullptr for an empty holder (Linear fc{nullptr};).");
  }
  // An empty holder.
  /* implicit */ ModuleHolder(std::nullptr_t) : impl_(nullptr) {}
  // Constructs the module from these arguments.
  template <typename Head, typename... Tail,
            typename = std::enable_if_t<
                !(torch::detail::is_module_holder_of<Head, Contained>::value &&
                  sizeof...(Tail) == 0)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head),
                                          std::forward<Tail>(tail)...)) {}
  // Wraps an existing module (shared).
  /* implicit */ ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }

  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }

  // Calls the module's forward.
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  // Indexes the module (containers such as Sequential).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  void check_not_empty() const {
    TORCH_CHECK(impl_ != nullptr, "ModuleHolder: accessing an empty ModuleHolder (one "
                "constructed from nullptr); assign a module to it before use.");
  }
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      return nullptr;
    }
  }
};

// Prints the held module (see operator<< of Module).
template <typename Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& module) {
  return stream << *module;
}

}  // namespace nn
}  // namespace torch

// TORCH_MODULE_IMPL(Name, Impl) declares `class Name` holding an Impl;
// TORCH_MODULE(Name) uses NameImpl.
#define TORCH_MODULE_IMPL(Name, ImplType)                              \
  class Name : public torch::nn::ModuleHolder<ImplType> { /* NOLINT */ \
   public:                                                             \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;             \
    using Impl = ImplType;                                             \
  }

#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)
