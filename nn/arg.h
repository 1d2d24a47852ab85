// nn/arg.h — TORCH_ARG(type, name): the options pattern of libtorch
// (torch/arg.h).
//
//   struct LinearOptions {
//     LinearOptions(int64_t in, int64_t out) : in_features_(in), out_features_(out) {}
//     TORCH_ARG(int64_t, in_features);
//     TORCH_ARG(bool, bias) = true;
//   };
//   auto o = LinearOptions(4, 2).bias(false);   // chained setters
//   bool b = o.bias();                          // getter
//
// Declares a private member `name_`, a setter `name(value)` returning
// *this for chaining, and const and mutable getters `name()`. The macro
// leaves the class in `private:`; a default follows as `= value;`.
#pragma once

#include <utility>

#define TORCH_ARG(T, name)                                 \
 public:                                                   \
  inline auto name(const T& new_##name)->decltype(*this) { \
    this->name##_ = new_##name;                            \
    return *this;                                          \
  }                                                        \
  inline auto name(T&& new_##name)->decltype(*this) {      \
    this->name##_ = std::move(new_##name);                 \
    return *this;                                          \
  }                                                        \
  inline const T& name() const noexcept {                  \
    return this->name##_;                                  \
  }                                                        \
  inline T& name() noexcept {                              \
    return this->name##_;                                  \
  }                                                        \
                                                           \
 private:                                                  \
  T name##_
