#include "nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>
#include <unordered_set>

#include "autograd/grad_mode.h"

namespace torch {
namespace nn {

std::string detail::demangle(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return mangled;
  std::string out(demangled);
  std::free(demangled);  // NOLINT: __cxa_demangle allocates with malloc
  return out;
}

namespace {

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const noexcept {
  // The dynamic type is only known once construction has finished, so the
  // default name is computed on first use.
  if (name_.empty()) name_ = detail::demangle(typeid(*this).name());
  return name_;
}

// ---- walking the tree ----

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const ConstModuleApplyFunction& fn) const {
  fn(*this);
  for (const auto& child : children_) {
    static_cast<const Module&>(*child.value()).apply(fn);
  }
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& child : children_) {
    child.value()->apply(fn, join_name(name_prefix, child.key()));
  }
}

void Module::apply(const ConstNamedModuleApplyFunction& fn,
                   const std::string& name_prefix) const {
  fn(name_prefix, *this);
  for (const auto& child : children_) {
    static_cast<const Module&>(*child.value()).apply(fn, join_name(name_prefix, child.key()));
  }
}

void Module::apply(const ModulePointerApplyFunction& fn) const {
  fn(shared_from_this_checked("apply"));
  for (const auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const NamedModulePointerApplyFunction& fn,
                   const std::string& name_prefix) const {
  fn(name_prefix, shared_from_this_checked("apply"));
  for (const auto& child : children_) {
    child.value()->apply(fn, join_name(name_prefix, child.key()));
  }
}

std::shared_ptr<Module> Module::shared_from_this_checked(const char* where) const {
  std::shared_ptr<const Module> ptr = weak_from_this().lock();
  TORCH_CHECK(ptr != nullptr, "Module::", where, ": this module (", name(),
              ") is not owned by a std::shared_ptr, so it cannot hand out pointers to "
              "itself. Create it through its ModuleHolder or std::make_shared, or pass "
              "include_self=false.");
  return std::const_pointer_cast<Module>(ptr);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Parameter");
  if (!recurse) {
    for (const auto& item : parameters_) {
      if (item.value().defined()) result.insert(item.key(), item.value());
    }
    return result;
  }
  apply([&result](const std::string& prefix, const Module& module) {
    for (const auto& item : module.parameters_) {
      if (item.value().defined()) result.insert(join_name(prefix, item.key()), item.value());
    }
  });
  return result;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  return named_buffers(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> result("Buffer");
  if (!recurse) {
    for (const auto& item : buffers_) {
      if (item.value().defined()) result.insert(item.key(), item.value());
    }
    return result;
  }
  apply([&result](const std::string& prefix, const Module& module) {
    for (const auto& item : module.buffers_) {
      if (item.value().defined()) result.insert(join_name(prefix, item.key()), item.value());
    }
  });
  return result;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules(std::string(), include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  // A module reachable along two paths is listed once, under the first.
  std::unordered_set<const Module*> seen;
  if (include_self) {
    result.insert(name_prefix, shared_from_this_checked("named_modules"));
    seen.insert(this);
  }
  // Depth-first preorder with an explicit stack (children pushed in
  // reverse so that they pop in registration order).
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> order;
  for (auto it = children_.items().rbegin(); it != children_.items().rend(); ++it) {
    order.emplace_back(join_name(name_prefix, it->key()), it->value());
  }
  while (!order.empty()) {
    auto [name, module] = std::move(order.back());
    order.pop_back();
    if (!seen.insert(module.get()).second) continue;
    result.insert(name, module);
    const auto& items = module->children_.items();
    for (auto it = items.rbegin(); it != items.rend(); ++it) {
      order.emplace_back(join_name(name, it->key()), it->value());
    }
  }
  return result;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

// ---- mode ----

void Module::train(bool on) {
  for (auto& child : children_) child.value()->train(on);
  is_training_ = on;
}

// ---- conversion ----

void Module::convert_own_tensors(const std::function<Tensor(const Tensor&)>& convert) {
  for (auto& item : parameters_) {
    Tensor& param = item.value();
    if (!param.defined()) continue;
    param.set_data(convert(param));
    const Tensor& grad = param.grad();
    if (grad.defined()) grad.set_data(convert(grad));
  }
  for (auto& item : buffers_) {
    if (item.value().defined()) item.value().set_data(convert(item.value()));
  }
}

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  NoGradGuard no_grad;
  apply([&](Module& module) {
    module.convert_own_tensors([&](const Tensor& t) {
      return isFloatingType(t.scalar_type()) ? t.to(device, dtype, non_blocking)
                                             : t.to(device, t.scalar_type(), non_blocking);
    });
  });
}

void Module::to(ScalarType dtype, bool non_blocking) {
  NoGradGuard no_grad;
  apply([&](Module& module) {
    module.convert_own_tensors([&](const Tensor& t) {
      return isFloatingType(t.scalar_type()) ? t.to(dtype, non_blocking) : t;
    });
  });
}

void Module::to(Device device, bool non_blocking) {
  NoGradGuard no_grad;
  apply([&](Module& module) {
    module.convert_own_tensors(
        [&](const Tensor& t) { return t.to(device, t.scalar_type(), non_blocking); });
  });
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& param : parameters()) {
    Tensor& grad = param.mutable_grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      grad = Tensor();
    } else {
      NoGradGuard no_grad;
      // A gradient with history (create_graph) is cut loose before zeroing,
      // as libtorch does.
      if (grad.grad_fn() != nullptr) grad = grad.detach();
      grad.zero_();
    }
  }
}

// ---- printing ----

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next_indentation = indentation + "  ";
  for (const auto& child : children_) {
    stream << next_indentation << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next_indentation);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

// ---- registration ----

void Module::check_new_name(const char* where, const char* what, const std::string& name) const {
  TORCH_CHECK(!name.empty(), where, ": the ", what,
              " name must not be empty; pass a name such as \"weight\".");
  TORCH_CHECK(name.find('.') == std::string::npos, where, ": the ", what, " name '", name,
              "' contains a dot, which separates names in named_parameters(); use a "
              "name without '.' (e.g. '_' instead).");
  const char* taken_by = parameters_.contains(name) ? "Parameter"
                         : buffers_.contains(name)  ? "Buffer"
                         : children_.contains(name) ? "Submodule"
                                                    : nullptr;
  TORCH_CHECK(taken_by == nullptr, where, ": ", taken_by, " '", name,
              "' already defined in this module (", this->name(), "); choose another ",
              what, " name.");
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name("register_parameter", "Parameter", name);
  if (tensor.defined()) tensor.set_requires_grad(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_new_name("register_buffer", "Buffer", name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>& /*device*/) const {
  TORCH_CHECK(false, "clone() has not been implemented for ", name(), ". Subclass "
              "torch::nn::Cloneable<", name(), "> instead of torch::nn::Module (and "
              "register everything in reset()) to inherit the ability to clone.");
}

void Module::clone_(Module& /*other*/, const std::optional<Device>& /*device*/) {
  TORCH_CHECK(false, "clone: the submodule ", name(), " of a Cloneable module is not "
              "Cloneable itself. Subclass torch::nn::Cloneable<", name(), "> instead of "
              "torch::nn::Module to clone it.");
}

void Module::unregister_module(const std::string& name) {
  TORCH_CHECK(children_.contains(name), "unregister_module: there is no Submodule named '",
              name, "' in this module (", this->name(), "); its submodules are those "
              "listed by named_children().");
  children_.erase(name);
}

}  // namespace nn
}  // namespace torch
