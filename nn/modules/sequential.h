// nn/modules/sequential.h — torch::nn::Sequential (modules called in a
// chain) and torch::nn::ModuleList (a list of modules without a forward).
//
//   torch::nn::Sequential net(torch::nn::Linear(784, 128), torch::nn::ReLU(),
//                             torch::nn::Linear(128, 10));
//   auto logits = net->forward(x);          // or net(x)
//   net->push_back(torch::nn::LogSoftmax(1));
//   auto first = net->ptr<torch::nn::LinearImpl>(0);
//
//   torch::nn::ModuleList blocks;
//   for (int i = 0; i < 3; ++i) blocks->push_back(torch::nn::Linear(8, 8));
//   for (const auto& block : *blocks) x = block->as<torch::nn::Linear>()->forward(x);
//
// Both register their elements as submodules named "0", "1", ... (or the
// names given), so parameters() and printing see them.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "nn/modules/any.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::SequentialImpl
class SequentialImpl : public Module {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  // The modules in call order (holders, shared_ptrs, modules by value or
  // AnyModules).
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }
  // Named modules: Sequential({{"fc", Linear(2, 3)}, {"act", ReLU()}}).
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);
  explicit SequentialImpl(torch::OrderedDict<std::string, AnyModule>&& ordered_dict);

  void reset() {}
  // A Sequential of clones of its modules, under the same names.
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  // Appends a module, named after its position or `name`.
  template <typename ModuleType>
  void push_back(std::shared_ptr<ModuleType> module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  template <typename ModuleType>
  void push_back(std::string name, std::shared_ptr<ModuleType> module) {
    push_back(std::move(name), AnyModule(std::move(module)));
  }
  template <typename ModuleType>
  void push_back(const ModuleHolder<ModuleType>& module_holder) {
    push_back(std::to_string(modules_.size()), module_holder);
  }
  template <typename ModuleType>
  void push_back(std::string name, const ModuleHolder<ModuleType>& module_holder) {
    push_back(std::move(name), AnyModule(module_holder));
  }
  template <typename ModuleType,
            typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<ModuleType>> &&
                                        !std::is_lvalue_reference_v<ModuleType>>>
  void push_back(ModuleType&& module) {
    push_back(std::to_string(modules_.size()), AnyModule(std::move(module)));
  }
  void push_back(AnyModule any_module) {
    push_back(std::to_string(modules_.size()), std::move(any_module));
  }
  void push_back(std::string name, AnyModule any_module);
  // Appends every module of `other` (shared, renumbered).
  void extend(const SequentialImpl& other);

  // Calls the first module with `inputs` and each later one with the
  // previous output. Throws when the Sequential is empty.
  template <typename ReturnType = Tensor, typename... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    static_assert(std::is_same_v<ReturnType, Tensor>,
                  "Sequential::forward<T>: Ember's Sequential returns Tensor only.");
    TORCH_CHECK(!modules_.empty(), "Sequential::forward: the Sequential is empty; push_back "
                "modules before calling forward().");
    Tensor output = modules_.front().forward(std::forward<InputTypes>(inputs)...);
    for (size_t i = 1; i < modules_.size(); ++i) output = modules_[i].forward(output);
    return output;
  }

  // The index-th module.
  std::shared_ptr<Module> ptr(size_t index) const {
    check_index("ptr", index);
    return modules_[index].ptr();
  }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    check_index("ptr", index);
    return modules_[index].ptr<T>();
  }
  template <typename T>
  T& at(size_t index) {
    check_index("at", index);
    return modules_[index].get<T>();
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }

 private:
  void check_index(const char* where, size_t index) const;

  std::vector<AnyModule> modules_;
};

// torch::nn::Sequential — the holder, which also takes named modules.
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder<SequentialImpl>() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder<SequentialImpl>(std::make_shared<SequentialImpl>(named_modules)) {}
};

// torch::nn::ModuleListImpl
class ModuleListImpl : public Module {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <typename... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }

  void reset() {}
  // A ModuleList of clones of its modules.
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override;
  void pretty_print(std::ostream& stream) const override;

  // Appends a module, registered under its position.
  void push_back(std::shared_ptr<Module> module);
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::shared_ptr<Module>(std::move(module)));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& module_holder) {
    push_back(std::shared_ptr<Module>(module_holder.ptr()));
  }
  template <typename M,
            typename = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> &&
                                        !std::is_lvalue_reference_v<M>>>
  void push_back(M&& module) {
    push_back(std::shared_ptr<Module>(std::make_shared<std::decay_t<M>>(std::move(module))));
  }
  // Inserts before position `index` (0..size()); later modules are renamed.
  void insert(size_t index, std::shared_ptr<Module> module);
  template <typename M>
  void insert(size_t index, const ModuleHolder<M>& module_holder) {
    insert(index, std::shared_ptr<Module>(module_holder.ptr()));
  }
  // Appends every module of `other` (shared).
  void extend(const ModuleListImpl& other);

  std::shared_ptr<Module> ptr(size_t index) const {
    check_index("ptr", index);
    return modules_[index];
  }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    check_index("ptr", index);
    auto cast = std::dynamic_pointer_cast<T>(modules_[index]);
    TORCH_CHECK(cast != nullptr, "ModuleList::ptr: module ", index, " is a ",
                modules_[index]->name(), ", not a ", detail::demangle(typeid(T).name()), ".");
    return cast;
  }
  template <typename T>
  T& at(size_t index) {
    return *ptr<T>(index);
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }

 private:
  void check_index(const char* where, size_t index) const;

  std::vector<std::shared_ptr<Module>> modules_;
};
TORCH_MODULE(ModuleList);

}  // namespace nn
}  // namespace torch
