// autograd/engine_tls.h — what the engine tells Nodes about the backward
// pass running on this thread. Internal to the autograd package.
#pragma once

namespace torch {
namespace autograd {
struct Node;
namespace detail {

// Whether the backward pass on this thread needs `fn` to run (always true
// outside a pass, and for passes that run the whole graph).
bool current_task_needs(const Node* fn);

}  // namespace detail
}  // namespace autograd
}  // namespace torch
