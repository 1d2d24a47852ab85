// autograd/edge.h — an edge of the autograd graph: the Node a gradient flows
// to, and which of its inputs receives it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace torch {
namespace autograd {

struct Node;

struct Edge {
  Edge() noexcept = default;
  Edge(std::shared_ptr<Node> function_, uint32_t input_nr_) noexcept
      : function(std::move(function_)), input_nr(input_nr_) {}
  // Whether the edge leads anywhere (a tensor that does not require grad
  // gives an invalid edge).
  bool is_valid() const noexcept { return function != nullptr; }
  bool operator==(const Edge& other) const noexcept {
    return function == other.function && input_nr == other.input_nr;
  }
  bool operator!=(const Edge& other) const noexcept { return !(*this == other); }

  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

using edge_list = std::vector<Edge>;

}  // namespace autograd
}  // namespace torch
