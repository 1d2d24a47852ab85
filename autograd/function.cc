#include "autograd/function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "autograd/engine_tls.h"
#include "autograd/variable.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "registration/record_function.h"

namespace torch {
namespace autograd {

// The counter lives below autograd, where the profiler reads it (See Note
// [Forward and backward sequence numbers] in registration/record_function.h).
uint64_t next_sequence_nr() { return at::sequence_number::get_and_increment(); }
uint64_t peek_sequence_nr() { return at::sequence_number::peek(); }

Node::Node(uint64_t sequence_nr, edge_list&& next_edges)
    : sequence_nr_(sequence_nr), thread_id_(at::RecordFunction::currentThreadId()) {
  set_next_edges(std::move(next_edges));
}

variable_list Node::operator()(variable_list&& inputs) {
  for (auto& hook : tensor_pre_hooks_) inputs = (*hook)(inputs);
  for (auto& hook : pre_hooks_) inputs = (*hook)(inputs);
  if (post_hooks_.empty()) return apply(std::move(inputs));
  const variable_list inputs_copy = inputs;
  variable_list outputs = apply(std::move(inputs));
  for (auto& hook : post_hooks_) outputs = (*hook)(outputs, inputs_copy);
  return outputs;
}

uint32_t Node::add_input_metadata(const at::Tensor& t) {
  const InputMetadata& meta = input_metadata_.emplace_back(t);
  // One compare on the CPU path; the registry is asked only off the CPU.
  record_stream_of(meta.device());
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

void Node::record_current_stream(c10::Device device) {
  // A device type without a runtime (no plugin registered one) has no
  // streams to order: its Nodes run as CPU Nodes do, on the device thread.
  if (!c10::impl::hasDeviceGuardImpl(device.type())) return;
  stream_ = c10::impl::getDeviceGuardImpl(device.type())->getStream(device);
}

uint32_t Node::add_input_metadata_undefined() {
  input_metadata_.emplace_back();
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

void Node::set_next_edges(edge_list&& next_edges) {
  next_edges_ = std::move(next_edges);
  topological_nr_ = 0;
  for (const Edge& e : next_edges_) {
    if (e.function) topological_nr_ = std::max(topological_nr_, e.function->topological_nr() + 1);
  }
}

void Node::add_next_edge(Edge edge) {
  if (edge.function) {
    topological_nr_ = std::max(topological_nr_, edge.function->topological_nr() + 1);
  }
  next_edges_.push_back(std::move(edge));
}

bool Node::should_compute_output(size_t i) const {
  const Edge& e = next_edges_.at(i);
  return e.is_valid() && detail::current_task_needs(e.function.get());
}

bool Node::any_output_needed() const {
  for (size_t i = 0; i < next_edges_.size(); ++i) {
    if (should_compute_output(i)) return true;
  }
  return false;
}

// Note [Node names]
// ~~~~~~~~~~~~~~~~~~
// Node::name() is the demangled type name with every namespace or class
// qualifier dropped, inside template arguments too: "MulBackward0" for
// torch::autograd::generated::MulBackward0, "CppNode<MyMulFunction>" for a
// custom Function's node whether MyMulFunction is global, in a namespace or
// in an anonymous one. A qualifier is a run of identifier characters (or
// "(anonymous namespace)") followed by "::"; cutting at the last "::" of the
// whole string instead would keep only "MyMulFunction>" of
// "CppNode<ns::MyMulFunction>".
static std::string strip_qualifiers(const std::string& full) {
  static const std::string kAnonymous = "(anonymous namespace)";
  std::string out;
  out.reserve(full.size());
  size_t segment = 0;  // where the identifier being copied starts in `out`
  for (size_t i = 0; i < full.size();) {
    if (full.compare(i, 2, "::") == 0) {
      out.resize(segment);  // drop the qualifier just copied
      i += 2;
      continue;
    }
    if (full.compare(i, kAnonymous.size(), kAnonymous) == 0) {
      segment = out.size();
      out += kAnonymous;
      i += kAnonymous.size();
      continue;
    }
    const char c = full[i];
    const bool ident = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!ident) segment = out.size() + 1;
    out += c;
    ++i;
  }
  return out;
}

std::string Node::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  const std::string full = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  return strip_qualifiers(full);
}

// Note [Deleting deep graphs]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Destroying a Node drops its next edges, which may destroy the Nodes they
// lead to, and so on: a chain of 100,000 Nodes would recurse 100,000 deep.
// deleteNode first frees the Node's saved tensors (which may also hold
// references to earlier Nodes through their grad_fn), then takes the next
// edges whose Node it is the last owner of onto an explicit stack, and
// treats them the same way in a loop: every Node is destroyed with no
// remaining edges, so no destructor recurses.
void deleteNode(Node* node) {
  std::vector<std::shared_ptr<Node>> stack;
  auto take_edges = [&stack](Node* n) {
    n->release_variables();
    for (Edge& e : n->next_edges()) {
      if (e.function && e.function.use_count() == 1) stack.push_back(std::move(e.function));
    }
    n->next_edges().clear();
  };
  take_edges(node);
  delete node;
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    take_edges(n.get());
    // n is destroyed here, with no edges left.
  }
}

edge_list collect_next_edges(std::initializer_list<const at::Tensor*> tensors) {
  edge_list edges;
  edges.reserve(tensors.size());
  for (const at::Tensor* t : tensors) {
    edges.push_back(t != nullptr && t->defined() ? impl::gradient_edge(*t) : Edge());
  }
  return edges;
}

edge_list collect_next_edges(at::TensorList tensors) {
  edge_list edges;
  edges.reserve(tensors.size());
  for (const at::Tensor& t : tensors) {
    edges.push_back(t.defined() ? impl::gradient_edge(t) : Edge());
  }
  return edges;
}

}  // namespace autograd
}  // namespace torch
