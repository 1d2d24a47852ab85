// nn/cloneable.h — torch::nn::Cloneable<Derived>: the base of a module that
// can make deep copies of itself with clone(), as libtorch's.
//
//   struct NetImpl : torch::nn::Cloneable<NetImpl> {
//     NetImpl() { reset(); }
//     void reset() override {                 // (re)creates every parameter,
//       fc = register_module("fc", torch::nn::Linear(4, 2));   // buffer and child
//       scale = register_parameter("scale", torch::ones({2}));
//     }
//     torch::nn::Linear fc{nullptr};
//     torch::Tensor scale;
//   };
//   TORCH_MODULE(Net);
//   auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());  // or clone(device)
//
// Note [How clone() copies a module]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// clone() copy-constructs Derived (options and plain members), empties the
// copy's parameters, buffers and children, and calls its reset(), which
// registers fresh ones and points the copy's member handles at them. It
// then writes the original's values into those fresh tensors (set_data of a
// clone, or of a copy on `device`), so the copy shares no memory with the
// original and keeps requires_grad; gradients are not copied. Each child is
// cloned the same way and assigned over the copy's fresh child object, so
// the copy's holders (fc above) see it. reset() must register everything
// the constructor does, under the same names: clone() checks the counts
// and names and says which differ.
//
// Note [Built-in modules instantiate Cloneable once]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A class template's virtual functions are instantiated in every source
// that needs its vtable, so each of the ~70 built-in modules' clone() and
// clone_() (with CloneAccess's copy and the make_shared behind it) was
// compiled again in every source including <torch/torch.h>: about 1 s of
// the 6.5 s that header costs a source (GCC, no optimization). Each module
// header declares its Cloneable base `extern template` and the module's .cc
// instantiates it once. Modules defined by users are unaffected.
#pragma once

#include <memory>
#include <optional>

#include "autograd/grad_mode.h"
#include "nn/module.h"

namespace torch {
namespace nn {
namespace detail {

// What Cloneable and CloneableAs share (a friend of Module). See Note [How
// clone() copies a module].
struct CloneAccess {
  template <typename Derived>
  static std::shared_ptr<Module> clone(const Derived& self,
                                       const std::optional<Device>& device) {
    torch::NoGradGuard no_grad;
    auto copy = std::make_shared<Derived>(self);
    const Module& original = self;  // (a family base may hide name())
    Module& fresh = *copy;
    fresh.parameters_.clear();
    fresh.buffers_.clear();
    fresh.children_.clear();
    copy->reset();
    copy_tensors(original, "parameters", original.parameters_, fresh.parameters_, device);
    copy_tensors(original, "buffers", original.buffers_, fresh.buffers_, device);
    TORCH_CHECK(fresh.children_.size() == original.children_.size(), "clone: ", original.name(),
                "::reset() registered ", fresh.children_.size(), " submodules but the "
                "original has ", original.children_.size(), ". reset() must register every "
                "submodule the constructor does.");
    for (const auto& child : original.children_) {
      std::shared_ptr<Module>* mine = fresh.children_.find(child.key());
      TORCH_CHECK(mine != nullptr, "clone: ", original.name(), "::reset() did not register "
                  "the submodule '", child.key(), "' that the original has.");
      (*mine)->clone_(*child.value(), device);
    }
    return copy;
  }

  // Makes `self` a clone of `other`, which must be a Derived.
  template <typename Derived>
  static void clone_into(Derived& self, Module& other, const std::optional<Device>& device) {
    std::shared_ptr<Derived> clone = std::dynamic_pointer_cast<Derived>(other.clone(device));
    TORCH_CHECK(clone != nullptr, "clone: the submodule ", other.name(), " cannot be "
                "cloned into ", static_cast<Module&>(self).name(),
                ", a module of another type.");
    self = *clone;
  }

  static void copy_tensors(const Module& self, const char* what,
                           const OrderedDict<std::string, Tensor>& from,
                           OrderedDict<std::string, Tensor>& to,
                           const std::optional<Device>& device) {
    TORCH_CHECK(to.size() == from.size(), "clone: ", self.name(), "::reset() registered ",
                to.size(), " ", what, " but the original has ", from.size(), ". reset() "
                "must register every one the constructor does.");
    for (const auto& item : from) {
      Tensor* fresh = to.find(item.key());
      TORCH_CHECK(fresh != nullptr, "clone: ", self.name(), "::reset() did not register "
                  "the ", what, " entry '", item.key(), "' that the original has.");
      const Tensor& t = item.value();
      if (!t.defined() || !fresh->defined()) {
        TORCH_CHECK(t.defined() == fresh->defined(), "clone: ", self.name(), "'s ", what,
                    " entry '", item.key(), "' is ",
                    t.defined() ? "defined" : "undefined",
                    " in the original but not after reset().");
        continue;
      }
      fresh->set_data(device && t.device() != *device ? t.to(*device) : t.clone());
    }
  }
};

}  // namespace detail

// torch::nn::Cloneable
template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  // Registers this module's parameters, buffers and children afresh.
  virtual void reset() = 0;

  // A deep copy of this module (on `device` when given).
  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override {
    return detail::CloneAccess::clone(static_cast<const Derived&>(*this), device);
  }

 private:
  void clone_(Module& other, const std::optional<Device>& device) final {
    detail::CloneAccess::clone_into(static_cast<Derived&>(*this), other, device);
  }
};

namespace detail {

// Cloneable for the members of a built-in family (BatchNorm1d/2d/3d…)
// whose shared base `Base` derives from Module and has reset(): clones make
// a Derived, not a Base.
template <typename Derived, typename Base>
class CloneableAs : public Base {
 public:
  using Base::Base;

  std::shared_ptr<Module> clone(
      const std::optional<Device>& device = std::nullopt) const override {
    return CloneAccess::clone(static_cast<const Derived&>(*this), device);
  }

 private:
  void clone_(Module& other, const std::optional<Device>& device) final {
    CloneAccess::clone_into(static_cast<Derived&>(*this), other, device);
  }
};

}  // namespace detail
}  // namespace nn
}  // namespace torch
