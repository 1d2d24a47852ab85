// autograd/functions/basic_ops.h — Nodes every graph may contain.
#pragma once

#include <string>

#include "autograd/function.h"

namespace torch {
namespace autograd {

// The root of a backward pass with several roots: passes the given
// gradients on to them. Its stream() is the caller's current stream on the
// device of the first gradient off the CPU, when the root is made.
struct GraphRoot : Node {
  GraphRoot(edge_list functions, variable_list inputs);
  std::string name() const override { return "GraphRoot"; }

 protected:
  variable_list apply(variable_list&& inputs) override;

 private:
  variable_list outputs_;
};

// Backward of an op without a derivative: throws "the derivative for 'op'
// is not implemented" when a gradient reaches it.
struct NotImplemented : Node {
  explicit NotImplemented(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return "NotImplemented"; }

 protected:
  variable_list apply(variable_list&& inputs) override;

 private:
  std::string op_;
};

// Throws `msg` when a gradient reaches it.
struct Error : Node {
  explicit Error(std::string msg) : msg_(std::move(msg)) {}
  std::string name() const override { return "Error"; }

 protected:
  variable_list apply(variable_list&& inputs) override;

 private:
  std::string msg_;
};

}  // namespace autograd
}  // namespace torch
