// The engine's seams for code that builds its own backward pass (distributed
// autograd): a GraphTask made by hand from a root Node of one's own,
// compute_dependencies, init_to_execute and execute_with_graph_task, driven
// from another thread, with the result or the error in a Future.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include <torch/autograd.h>
#include <torch/types.h>

#include "autograd/graph_task.h"
#include "autograd/ready_queue.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::Engine;
using torch::autograd::GraphTask;
using torch::autograd::InputBuffer;
using torch::autograd::Node;
using torch::autograd::variable_list;

// A root as distributed autograd's receive function is one: no inputs; it
// hands on gradients that arrived from elsewhere.
struct RecvGradients : Node {
  RecvGradients(torch::autograd::edge_list next, variable_list grads)
      : Node(std::move(next)), grads_(std::move(grads)) {}
  std::string name() const override { return "RecvGradients"; }
  variable_list apply(variable_list&& /*inputs*/) override { return grads_; }
  variable_list grads_;
};

// A Node that fails, standing in for a remote call that broke.
struct FailingNode : Node {
  explicit FailingNode(torch::autograd::edge_list next) : Node(std::move(next)) {
    add_input_metadata(at::ones({3}));
  }
  std::string name() const override { return "FailingNode"; }
  variable_list apply(variable_list&& /*inputs*/) override {
    TORCH_CHECK(false, "FailingNode: the gradient message was lost.");
  }
};

std::vector<float> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

TEST(GraphTask, RunsFromAnotherThreadWhileThisOneWaitsOnTheFuture) {
  at::Tensor x = at::ones({3}).requires_grad_();
  at::Tensor y = x * 2;
  auto root = torch::autograd::make_node<RecvGradients>(
      torch::autograd::edge_list{torch::autograd::impl::gradient_edge(y)},
      variable_list{at::full({3}, 5.0)});
  auto task = std::make_shared<GraphTask>(/*keep_graph=*/false, /*grad_mode=*/false,
                                          /*reentrant_depth=*/0);
  Engine& engine = Engine::get_default_engine();
  engine.compute_dependencies(root.get(), *task);

  c10::intrusive_ptr<c10::ivalue::Future> fut = task->future_result_;
  int callback_runs = 0;
  fut->addCallback([&](c10::ivalue::Future& f) {
    ++callback_runs;
    EXPECT_FALSE(f.hasError());
  });
  std::thread rpc([&] {
    auto returned = engine.execute_with_graph_task(task, root, InputBuffer(0));
    EXPECT_TRUE(returned->completed());  // this thread did the CPU work
    EXPECT_EQ(returned.get(), fut.get());
  });
  fut->waitAndThrow();
  rpc.join();
  EXPECT_EQ(callback_runs, 1);
  ASSERT_TRUE(fut->value().isTensorList());
  EXPECT_TRUE(fut->value().toTensorVector().empty());  // no captures: gradients went to .grad
  EXPECT_EQ(values(x.grad()), (std::vector<float>{10, 10, 10}));
  EXPECT_FALSE(Engine::is_checkpoint_valid());
}

TEST(GraphTask, InitToExecuteCapturesTheGradientsOfChosenEdges) {
  at::Tensor a = at::full({3}, 3.0).requires_grad_();
  at::Tensor b = at::ones({3}).requires_grad_();
  at::Tensor y = a * b;
  auto root = torch::autograd::make_node<RecvGradients>(
      torch::autograd::edge_list{torch::autograd::impl::gradient_edge(y)},
      variable_list{at::ones({3})});
  auto task = std::make_shared<GraphTask>(false, false, 0);
  Engine& engine = Engine::get_default_engine();
  engine.compute_dependencies(root.get(), *task);
  task->init_to_execute(*root, {torch::autograd::impl::gradient_edge(b)},
                        /*accumulate_grad=*/false);
  c10::intrusive_ptr<c10::ivalue::Future> result;
  std::thread rpc([&] { result = engine.execute_with_graph_task(task, root, InputBuffer(0)); });
  rpc.join();
  auto grads = result->value().to<variable_list>();
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(values(grads[0]), (std::vector<float>{3, 3, 3}));
  EXPECT_FALSE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
}

TEST(GraphTask, ANodeThatThrowsCompletesTheFutureWithItsError) {
  at::Tensor x = at::ones({3}).requires_grad_();
  auto failing = torch::autograd::make_node<FailingNode>(
      torch::autograd::edge_list{torch::autograd::impl::gradient_edge(x)});
  auto root = torch::autograd::make_node<RecvGradients>(
      torch::autograd::edge_list{torch::autograd::Edge(failing, 0)},
      variable_list{at::ones({3})});
  auto task = std::make_shared<GraphTask>(false, false, 0);
  Engine& engine = Engine::get_default_engine();
  engine.compute_dependencies(root.get(), *task);
  c10::intrusive_ptr<c10::ivalue::Future> fut = task->future_result_;
  std::thread rpc([&] { engine.execute_with_graph_task(task, root, InputBuffer(0)); });
  fut->wait();
  rpc.join();
  EXPECT_TRUE(fut->hasError());
  EXPECT_EQ(fut->tryRetrieveErrorMessage(), "FailingNode: the gradient message was lost.");
  EXPECT_THAT(errorOf([&] { fut->waitAndThrow(); }),
              HasSubstr("FailingNode: the gradient message was lost."));
  EXPECT_FALSE(x.grad().defined());
  // The engine stays usable.
  (x * 4).sum().backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{4, 4, 4}));
}

TEST(GraphTask, RunsOnceAndIsPreparedOnce) {
  at::Tensor x = at::ones({1}).requires_grad_();
  at::Tensor y = x * 2;
  auto root = torch::autograd::make_node<RecvGradients>(
      torch::autograd::edge_list{torch::autograd::impl::gradient_edge(y)},
      variable_list{at::ones({1})});
  auto task = std::make_shared<GraphTask>(/*keep_graph=*/true, false, 0);
  Engine& engine = Engine::get_default_engine();
  engine.compute_dependencies(root.get(), *task);
  EXPECT_THAT(errorOf([&] { engine.compute_dependencies(root.get(), *task); }),
              HasSubstr("compute_dependencies: the GraphTask already has dependencies for 2 "
                        "Nodes. Call it once per GraphTask"));
  EXPECT_THAT(errorOf([&] { engine.execute_with_graph_task(task, root, InputBuffer(1)); }),
              HasSubstr("execute_with_graph_task: the input buffer holds 1 gradients but the "
                        "root Node RecvGradients takes 0."));
  engine.execute_with_graph_task(task, root, InputBuffer(0))->waitAndThrow();
  EXPECT_THAT(errorOf([&] { engine.execute_with_graph_task(task, root, InputBuffer(0)); }),
              HasSubstr("execute_with_graph_task: this GraphTask has already run (or is "
                        "running). A GraphTask runs once"));
  EXPECT_THAT(errorOf([&] { engine.execute_with_graph_task(nullptr, root, InputBuffer(0)); }),
              HasSubstr("execute_with_graph_task: the GraphTask is null."));
  EXPECT_FLOAT_EQ(x.grad().item<float>(), 2.0f);
}

TEST(ReadyQueue, PopsWakeUpsFirstThenTheMostRecentNode) {
  torch::autograd::ReadyQueue queue;
  auto task = std::make_shared<GraphTask>(false, false, 0);
  auto older = torch::autograd::make_node<RecvGradients>(torch::autograd::edge_list{},
                                                         variable_list{});
  auto newer = torch::autograd::make_node<RecvGradients>(torch::autograd::edge_list{},
                                                         variable_list{});
  queue.push(torch::autograd::NodeTask(task, older, InputBuffer(0)));
  queue.push(torch::autograd::NodeTask(task, newer, InputBuffer(0)));
  queue.push(torch::autograd::NodeTask(task, nullptr, InputBuffer(0)));
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue.pop().fn_, nullptr);
  EXPECT_EQ(queue.pop().fn_, newer);
  EXPECT_EQ(queue.pop().fn_, older);
  EXPECT_TRUE(queue.empty());
}

}  // namespace
