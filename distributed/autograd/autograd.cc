// The public API of autograd.h over the container and the engine.
#include "distributed/autograd/autograd.h"

#include "distributed/autograd/context.h"
#include "distributed/autograd/engine.h"

namespace torch {
namespace distributed {
namespace autograd {

context::context()
    : id_(DistAutogradContainer::get_instance().new_context()->context_id()) {}

context::~context() {
  if (DistAutogradContainer::current_context_id() == id_) {
    DistAutogradContainer::set_current_context_id(-1);
  }
  try {
    DistAutogradContainer::get_instance().release_context(id_);
  } catch (const std::exception&) {
    // A destructor must not throw; the peers drop the context at shutdown.
  }
}

void backward(int64_t context_id, const std::vector<at::Tensor>& roots,
              bool retain_graph) {
  DistEngine::execute(context_id, roots, retain_graph);
}

GradientMap get_gradients(int64_t context_id) {
  return DistAutogradContainer::get_instance()
      .retrieve_context(context_id)
      ->get_gradients();
}

int64_t current_context_id() {
  return DistAutogradContainer::current_context_id();
}

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
