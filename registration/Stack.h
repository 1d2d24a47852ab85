// registration/Stack.h — the Stack of IValues that boxed kernels work on, and
// PyTorch's helpers for it.
//
// A boxed call pushes its arguments in schema order; the kernel reads or pops
// them and pushes its results in their place.
//
//   torch::jit::Stack stack;
//   torch::jit::push(stack, self, other, /*alpha=*/1);
//   c10::IValue alpha = torch::jit::pop(stack);
//   c10::IValue& self_iv = torch::jit::peek(stack, 0, 2);  // first of last 2
//   torch::jit::drop(stack, 2);
//
// Every helper checks that the stack holds enough values and throws
// c10::Error otherwise: a kernel that pops more than was pushed gets a clear
// error instead of undefined behaviour. A Stack is a std::vector: not safe to
// change from two threads at once.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"
#include "registration/IValue.h"

namespace torch {
namespace jit {

using c10::IValue;

// torch::jit::Stack (also c10::Stack)
//
// Arguments and results of a boxed call, last argument on top (at the back).
using Stack = std::vector<c10::IValue>;

// torch::jit::push
//
// Pushes each argument in order, converting it with IValue's constructors:
// push(stack, t, 2, 0.5) leaves [..., t, 2, 0.5].
template <class... Args>
void push(Stack& stack, Args&&... args) {
  (stack.emplace_back(std::forward<Args>(args)), ...);
}

// torch::jit::pop
//
// Removes and returns the top value; the `n` form removes the top n values
// and returns them bottom first (the order they were pushed in).
inline c10::IValue pop(Stack& stack) {
  TORCH_CHECK(!stack.empty(),
              "torch::jit::pop: the stack is empty. A boxed kernel read more "
              "values than the call pushed; check the argument count against "
              "the operator's schema.");
  c10::IValue result = std::move(stack.back());
  stack.pop_back();
  return result;
}

inline std::vector<c10::IValue> pop(Stack& stack, size_t n) {
  TORCH_CHECK(n <= stack.size(), "torch::jit::pop: cannot pop ", n,
              " values from a stack of ", stack.size(),
              ". A boxed kernel read more values than the call pushed; check "
              "the argument count against the operator's schema.");
  const auto first = stack.end() - static_cast<std::ptrdiff_t>(n);
  std::vector<c10::IValue> result(std::make_move_iterator(first),
                                  std::make_move_iterator(stack.end()));
  stack.erase(first, stack.end());
  return result;
}

// torch::jit::drop
//
// Removes the top n values.
inline void drop(Stack& stack, size_t n) {
  TORCH_CHECK(n <= stack.size(), "torch::jit::drop: cannot drop ", n,
              " values from a stack of ", stack.size(),
              ". Drop at most as many values as the call pushed.");
  stack.erase(stack.end() - static_cast<std::ptrdiff_t>(n), stack.end());
}

// torch::jit::peek
//
// The i-th (from 0) of the top N values, in push order: peek(stack, 0, 2) is
// the second from the top. The reference is valid until the stack changes.
inline c10::IValue& peek(Stack& stack, size_t i, size_t N) {
  TORCH_CHECK(N <= stack.size() && i < N, "torch::jit::peek: cannot read "
              "value ", i, " of the last ", N, " on a stack of ", stack.size(),
              ". Pass i < N <= stack size.");
  return stack[stack.size() - N + i];
}
inline const c10::IValue& peek(const Stack& stack, size_t i, size_t N) {
  return peek(const_cast<Stack&>(stack), i, N);
}

// torch::jit::last
//
// A view of the top N values, in push order; valid until the stack changes.
inline c10::ArrayRef<c10::IValue> last(const Stack& stack, size_t N) {
  TORCH_CHECK(N <= stack.size(), "torch::jit::last: cannot view the last ", N,
              " values of a stack of ", stack.size(),
              ". Pass N <= stack size.");
  return c10::ArrayRef<c10::IValue>(stack.data() + (stack.size() - N), N);
}

}  // namespace jit
}  // namespace torch

namespace c10 {
using Stack = torch::jit::Stack;
}  // namespace c10
