#include "nn/modules/sequential.h"

namespace torch {
namespace nn {

// ---- Sequential ----

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
  modules_.reserve(named_modules.size());
  for (const NamedAnyModule& named : named_modules) push_back(named.name(), named.module());
}

SequentialImpl::SequentialImpl(torch::OrderedDict<std::string, AnyModule>&& ordered_dict) {
  modules_.reserve(ordered_dict.size());
  for (auto& item : ordered_dict) push_back(item.key(), std::move(item.value()));
}

void SequentialImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Sequential";
}

void SequentialImpl::push_back(std::string name, AnyModule any_module) {
  TORCH_CHECK(!any_module.is_empty(), "Sequential::push_back: the module '", name,
              "' is an empty AnyModule; assign a module to it first.");
  register_module(std::move(name), any_module.ptr());
  modules_.push_back(std::move(any_module));
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  static_cast<Module&>(*copy) = static_cast<const Module&>(*this);  // name, training mode
  copy->children_.clear();
  for (size_t i = 0; i < modules_.size(); ++i) {
    copy->push_back(children_[i].key(), modules_[i].clone(device));
  }
  return copy;
}

void SequentialImpl::extend(const SequentialImpl& other) {
  TORCH_CHECK(&other != this, "Sequential::extend: a Sequential cannot extend itself; copy "
              "its modules into a new Sequential first.");
  for (const AnyModule& module : other.modules_) push_back(module);
}

void SequentialImpl::check_index(const char* where, size_t index) const {
  TORCH_CHECK(index < modules_.size(), "Sequential::", where, ": index ", index,
              " is out of range for a Sequential of ", modules_.size(), " modules.");
}

// ---- ModuleList ----

void ModuleListImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::ModuleList";
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  TORCH_CHECK(module != nullptr, "ModuleList::push_back: the module is null; construct it "
              "first.");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  static_cast<Module&>(*copy) = static_cast<const Module&>(*this);  // name, training mode
  copy->children_.clear();
  for (const std::shared_ptr<Module>& module : modules_) copy->push_back(module->clone(device));
  return copy;
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  TORCH_CHECK(index <= modules_.size(), "ModuleList::insert: index ", index,
              " is out of range for a ModuleList of ", modules_.size(),
              " modules; insert at 0..size().");
  TORCH_CHECK(module != nullptr, "ModuleList::insert: the module is null; construct it first.");
  if (index == modules_.size()) {
    push_back(std::move(module));
    return;
  }
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  // Children are named by position: rebuild the names in order.
  children_.clear();
  for (size_t i = 0; i < modules_.size(); ++i) {
    children_.insert(std::to_string(i), modules_[i]);
  }
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  TORCH_CHECK(&other != this, "ModuleList::extend: a ModuleList cannot extend itself; copy "
              "its modules into a new ModuleList first.");
  for (const auto& module : other.modules_) push_back(module);
}

void ModuleListImpl::check_index(const char* where, size_t index) const {
  TORCH_CHECK(index < modules_.size(), "ModuleList::", where, ": index ", index,
              " is out of range for a ModuleList of ", modules_.size(), " modules.");
}

}  // namespace nn
}  // namespace torch
