// autograd/function.h — Node, one operation of the autograd graph.
//
// A Node is made by an op's autograd kernel in the forward pass. Its inputs
// are the gradients of the op's outputs; its outputs are the gradients of
// the op's inputs, sent along next_edges() to the Nodes that made those
// inputs (or to AccumulateGrad for leaves). Subclasses implement apply().
//
//   auto node = std::make_shared<MyBackward>();   // or make_node<T>()
//   node->set_next_edges(collect_next_edges(a, b));
//   set_history(result, node);
//
// Nodes are ordered by sequence_nr (a per-thread counter at creation): the
// engine runs the most recent first. topological_nr is the longest path to
// a leaf, which lets the engine prune. A Node of an accelerator op also
// records the stream its forward op ran on (stream()); the engine runs the
// Node's backward on it. See Note [Streams of a backward pass] in
// autograd/engine.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/Stream.h"
#include "autograd/edge.h"
#include "autograd/input_metadata.h"
#include "autograd/saved_variable.h"

namespace torch {
namespace autograd {

using Variable = at::Tensor;
using variable_list = std::vector<at::Tensor>;

// Hooks on a Node: pre hooks see (and may replace) the incoming gradients,
// post hooks see the outgoing ones and the incoming ones.
struct FunctionPreHook {
  virtual ~FunctionPreHook() = default;
  virtual variable_list operator()(const variable_list& grads) = 0;
};
struct FunctionPostHook {
  virtual ~FunctionPostHook() = default;
  virtual variable_list operator()(const variable_list& outputs,
                                   const variable_list& inputs) = 0;
};

// The next sequence number of this thread (and advances it).
uint64_t next_sequence_nr();
// Peeks at it without advancing.
uint64_t peek_sequence_nr();

struct Node : std::enable_shared_from_this<Node> {
  explicit Node(uint64_t sequence_nr, edge_list&& next_edges = edge_list());
  explicit Node(edge_list&& next_edges = edge_list())
      : Node(next_sequence_nr(), std::move(next_edges)) {}
  virtual ~Node() = default;

  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Runs the pre hooks, apply() and the post hooks.
  variable_list operator()(variable_list&& inputs);

  // ---- graph ----
  // Describes the next input (the gradient of forward output `t`). The
  // first input on a device other than the CPU also records the stream
  // current for that device (see stream()).
  uint32_t add_input_metadata(const at::Tensor& t);
  // An input whose gradient is never defined (e.g. a non-differentiable
  // output); keeps the numbering of the others.
  uint32_t add_input_metadata_undefined();
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }
  size_t num_inputs() const { return input_metadata_.size(); }

  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  const edge_list& next_edges() const { return next_edges_; }
  edge_list& next_edges() { return next_edges_; }
  void set_next_edges(edge_list&& next_edges);
  void add_next_edge(Edge edge);
  size_t num_outputs() const { return next_edges_.size(); }

  uint64_t sequence_nr() const noexcept { return sequence_nr_; }
  // The profiler's id of the thread that made the Node (its forward op's
  // thread; at::RecordFunction::currentThreadId()).
  uint64_t thread_id() const noexcept { return thread_id_; }
  uint64_t topological_nr() const noexcept { return topological_nr_; }

  // torch::autograd::Node::stream
  //
  // The stream of the forward op: the calling thread's current stream on
  // the device of the Node's first non-CPU input, as it was when that input
  // was added (add_input_metadata runs right after the forward op, on its
  // thread). std::nullopt for a Node whose inputs are all on the CPU, or
  // whose device type had no runtime registered (c10::impl::
  // getDeviceGuardImpl) then. The engine runs apply() under this stream and
  // orders the gradients it passes on against it; see Note [Streams of a
  // backward pass] in autograd/engine.cc. Set once while the Node is built,
  // read-only afterwards.
  const std::optional<c10::Stream>& stream() const noexcept { return stream_; }

  // Whether output `i` (the gradient of input i of the forward op) is needed
  // by the backward pass that runs this Node: its edge is valid and, for
  // grad() with inputs, leads to one of them.
  bool should_compute_output(size_t i) const;
  bool any_output_needed() const;

  // A readable name, e.g. "MulBackward0".
  virtual std::string name() const;

  // Frees saved tensors after a backward pass without retain_graph.
  virtual void release_variables() {}

  // The tensors this Node saved for its backward, in the order of the
  // forward's arguments (graph_dot draws them). Read while no backward pass
  // runs the Node.
  virtual std::vector<SavedTensorInfo> saved_tensors_info() const { return {}; }

  // ---- hooks ----
  void add_pre_hook(std::unique_ptr<FunctionPreHook> hook) {
    pre_hooks_.push_back(std::move(hook));
  }
  void add_post_hook(std::unique_ptr<FunctionPostHook> hook) {
    post_hooks_.push_back(std::move(hook));
  }
  // Tensor hooks (register_hook on a non-leaf) run before the others; see
  // autograd/variable.h.
  std::vector<std::unique_ptr<FunctionPreHook>>& tensor_pre_hooks() {
    return tensor_pre_hooks_;
  }
  std::vector<std::unique_ptr<FunctionPreHook>>& pre_hooks() { return pre_hooks_; }
  std::vector<std::unique_ptr<FunctionPostHook>>& post_hooks() { return post_hooks_; }

  // ---- anomaly mode: where the forward op was created ----
  void set_forward_trace(std::string trace) { forward_trace_ = std::move(trace); }
  const std::string& forward_trace() const { return forward_trace_; }

 protected:
  virtual variable_list apply(variable_list&& inputs) = 0;

  // Guards saved variables: a Node may run on several threads when graphs
  // are shared (See the engine's notes).
  std::mutex mutex_;

  // Records the calling thread's current stream on `device` as stream(),
  // unless a stream is recorded already or `device` is a CPU or has no
  // runtime registered. For Nodes whose stream is not that of an input
  // (GraphRoot: the stream of the gradients it hands out).
  void record_stream_of(c10::Device device) {
    if (device.type() != c10::DeviceType::CPU && !stream_) record_current_stream(device);
  }

 private:
  const uint64_t sequence_nr_;
  const uint64_t thread_id_;
  uint64_t topological_nr_ = 0;
  // input_metadata_ and stream_ are adjacent (usually one cache line): the
  // engine reads both of a Node when it hands the Node a gradient.
  std::vector<InputMetadata> input_metadata_;
  std::optional<c10::Stream> stream_;
  edge_list next_edges_;
  std::vector<std::unique_ptr<FunctionPreHook>> tensor_pre_hooks_;
  std::vector<std::unique_ptr<FunctionPreHook>> pre_hooks_;
  std::vector<std::unique_ptr<FunctionPostHook>> post_hooks_;
  std::string forward_trace_;

  // The slow path of record_stream_of: asks the device's runtime.
  void record_current_stream(c10::Device device);
};

// Deletes a Node without recursing down its edges (a chain of 100,000 Nodes
// would overflow the stack): next edges whose Node this was the last owner
// of are moved onto an explicit stack first.
void deleteNode(Node* node);

// Makes a Node owned through deleteNode. Use instead of make_shared.
template <typename T, typename... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::shared_ptr<T>(new T(std::forward<Args>(args)...), deleteNode);
}

// The edges to the Nodes that made each tensor (invalid for tensors that do
// not require grad), in order.
edge_list collect_next_edges(std::initializer_list<const at::Tensor*> tensors);
edge_list collect_next_edges(at::TensorList tensors);

}  // namespace autograd
}  // namespace torch
