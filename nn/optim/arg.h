// nn/optim/arg.h — TORCH_ARG: libtorch's way of declaring an option with a
// chainable setter, for the optimizer options of nn/optim.
//
//   struct MyOptions {
//     TORCH_ARG(double, lr) = 0.1;     // lr() reads, lr(0.2) sets and returns *this
//   };
//   auto o = MyOptions().lr(0.2);
//
// libtorch defines the macro in <torch/arg.h>. Another Ember package may
// define it too; the guard keeps the first definition (all are equivalent:
// a const and a mutable getter, a copying and a moving setter that return
// *this, and a private member `name_`).
#pragma once

#include <utility>

#ifndef TORCH_ARG
#define TORCH_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_
#endif
