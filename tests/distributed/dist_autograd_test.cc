// Distributed autograd between processes (seed 001): the seed's example and
// a graph that crosses workers several times (A->B->A->C, with remote() and
// to_here()) exact against the same computation in one process,
// retain_graph, concurrent backward passes in 4 contexts, an error on a
// remote worker during backward (its message and the cleanup on every
// worker), 1,000 contexts opened and released, and a finite-difference
// check through an RPC. Values are small integers in float64 where results
// are compared exactly, so the order in which gradients are summed cannot
// change them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cmath>
#include <thread>

#include <torch/distributed.h>
#include <torch/library.h>
#include <torch/torch.h>

#include "distributed/optim/optimizer.h"
#include "registration/library.h"
#include "tests/distributed/multiprocess.h"
#include "tests/support/error_of.h"

namespace rpc = torch::distributed::rpc;
namespace dist_autograd = torch::distributed::autograd;
using ember_test::errorOf;
using ember_test::run_workers;
using ember_test::worker_name;
using ::testing::Each;
using ::testing::HasSubstr;

// Operators the workers call remotely: this worker's live context count,
// an op without a derivative (its backward raises on the callee), and one
// whose backward kills the callee's process.
namespace {
int64_t live_contexts() { return dist_autograd::debug::live_contexts(); }
at::Tensor twice_kernel(const at::Tensor& self) { return self * 2; }

struct DieInBackward : torch::autograd::Function<DieInBackward> {
  static at::Tensor forward(torch::autograd::AutogradContext*, at::Tensor self) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return self * 2;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::variable_list grads) {
    raise(SIGKILL);
    return grads;
  }
};
at::Tensor die_in_backward_autograd(const at::Tensor& self) {
  return DieInBackward::apply(self);
}
}  // namespace
namespace {
at::Tensor leaf(int64_t seed, bool requires_grad = true);
at::Tensor make_leaf(int64_t seed) { return leaf(seed); }
}  // namespace
TORCH_LIBRARY(dist_autograd_test, m) {
  m.def("live_contexts", &live_contexts);
  m.def("leaf", &make_leaf);
  m.def("no_derivative(Tensor self) -> Tensor");
  m.def("die_in_backward(Tensor self) -> Tensor");
}
TORCH_LIBRARY_IMPL(dist_autograd_test, CPU, m) {
  m.impl("no_derivative", TORCH_FN(twice_kernel));
  m.impl("die_in_backward", TORCH_FN(twice_kernel));
}
TORCH_LIBRARY_IMPL(dist_autograd_test, Autograd, m) {
  m.impl("die_in_backward", &die_in_backward_autograd);
}

namespace {

at::Tensor as_tensor(const c10::IValue& v) { return at::Tensor(v.toTensorBase()); }

// A leaf of small integers (exact in float64), the same on every worker.
at::Tensor leaf(int64_t seed, bool requires_grad) {
  at::Tensor t = at::empty({3, 3}, at::TensorOptions().dtype(at::kDouble));
  double* p = static_cast<double*>(t.data_ptr());
  for (int64_t i = 0; i < 9; ++i) p[i] = static_cast<double>((seed * 7 + i * 3) % 5 + 1);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

void expect_equal(const at::Tensor& got, const at::Tensor& want, const char* what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_TRUE(want.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  at::Tensor g = got.contiguous(), w = want.contiguous();
  for (int64_t i = 0; i < g.numel(); ++i) {
    EXPECT_EQ(static_cast<const double*>(g.data_ptr())[i],
              static_cast<const double*>(w.data_ptr())[i])
        << what << " at " << i;
  }
}

int64_t live_on(const std::string& worker) {
  return rpc::rpc_sync(worker, "dist_autograd_test::live_contexts", {}).toInt();
}

// No context left on this worker. A thread that just finished with one (a
// gRPC thread that aborted a pass, say) may still hold it for a moment.
bool no_local_contexts() {
  for (int i = 0; i < 500; ++i) {
    if (dist_autograd::debug::live_contexts() == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// Releases travel asynchronously: polls until `worker` has no context.
bool no_contexts_on(const std::string& worker) {
  for (int i = 0; i < 500; ++i) {
    if (live_on(worker) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Seed 001's example on worker 0: its gradients, from one context.
dist_autograd::GradientMap seed_example(const at::Tensor& t1, const at::Tensor& t2,
                                        const at::Tensor& t4, bool twice) {
  dist_autograd::context ctx;
  EXPECT_EQ(dist_autograd::current_context_id(), ctx.id());
  EXPECT_EQ(ctx.id() >> 48, 0);  // worker id in the high bits
  at::Tensor t3 = as_tensor(rpc::rpc_sync("worker1", "aten::add.Tensor", {t1, t2}));
  EXPECT_TRUE(t3.requires_grad());
  EXPECT_EQ(t3.grad_fn()->name(), "RecvRpcBackward");
  at::Tensor t5 = t3 * t4;
  at::Tensor loss = t5.sum();
  dist_autograd::backward(ctx.id(), {loss}, /*retain_graph=*/twice);
  if (twice) dist_autograd::backward(ctx.id(), {loss});
  return dist_autograd::get_gradients(ctx.id());
}

TEST(DistAutograd, SeedExampleExactAgainstOneProcess) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      at::Tensor t1 = leaf(1), t2 = leaf(2), t4 = leaf(4);
      dist_autograd::GradientMap grads = seed_example(t1, t2, t4, false);
      EXPECT_EQ(grads.size(), 3u);
      // Never into .grad.
      EXPECT_FALSE(t1.grad().defined());
      EXPECT_FALSE(t4.grad().defined());
      // The same computation in one process.
      at::Tensor l1 = leaf(1), l2 = leaf(2), l4 = leaf(4);
      ((l1 + l2) * l4).sum().backward();
      expect_equal(grads.at(t1), l1.grad(), "t1");
      expect_equal(grads.at(t2), l2.grad(), "t2");
      expect_equal(grads.at(t4), l4.grad(), "t4");
      // retain_graph: a second pass in the same context accumulates.
      dist_autograd::GradientMap twice = seed_example(t1, t2, t4, true);
      expect_equal(twice.at(t1), l1.grad() * 2, "t1 twice");
      expect_equal(twice.at(t4), l4.grad() * 2, "t4 twice");
      EXPECT_TRUE(no_local_contexts());
      EXPECT_TRUE(no_contexts_on("worker1"));
      EXPECT_THAT(errorOf([] { dist_autograd::get_gradients(12345); }),
                  HasSubstr("context 12345 is not known on this worker"));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

// Worker 0 (A) holds the leaves; the forward goes A->B->A->C, and B keeps
// a value made by remote() that A fetches with to_here().
at::Tensor crossing_forward(const at::Tensor& a, const at::Tensor& w, bool distributed) {
  at::Tensor b, r, d;
  if (distributed) {
    b = as_tensor(rpc::rpc_sync("worker1", "aten::mul.Tensor", {a, a}));
    rpc::RRef rr = rpc::remote("worker1", "aten::mul.Tensor", {a, w});
    r = as_tensor(rr.to_here());
  } else {
    b = a * a;
    r = a * w;
  }
  at::Tensor c = b * w + r;
  if (distributed) {
    d = as_tensor(rpc::rpc_sync("worker2", "aten::sub.Tensor", {c, a}));
  } else {
    d = c - a;
  }
  return (d * a).sum();
}

TEST(DistAutograd, GraphCrossingWorkersSeveralTimesIsExact) {
  auto codes = run_workers(3, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 3, o);
    if (rank == 0) {
      at::Tensor a = leaf(3), w = leaf(5);
      dist_autograd::GradientMap grads;
      {
        dist_autograd::context ctx;
        dist_autograd::backward(ctx.id(), {crossing_forward(a, w, true)});
        grads = dist_autograd::get_gradients(ctx.id());
      }
      at::Tensor la = leaf(3), lw = leaf(5);
      crossing_forward(la, lw, false).backward();
      expect_equal(grads.at(a), la.grad(), "a");
      expect_equal(grads.at(w), lw.grad(), "w");
      EXPECT_TRUE(no_contexts_on("worker1"));
      EXPECT_TRUE(no_contexts_on("worker2"));
      EXPECT_TRUE(no_local_contexts());
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistAutograd, ConcurrentBackwardInFourContexts) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      std::vector<std::thread> threads;
      std::vector<int> ok(4, 0);
      for (int k = 0; k < 4; ++k) {
        threads.emplace_back([k, &ok] {
          at::Tensor t1 = leaf(k), t2 = leaf(k + 1), t4 = leaf(k + 2);
          bool good = true;
          for (int iter = 0; iter < 10; ++iter) {
            dist_autograd::context ctx;
            at::Tensor t3 = as_tensor(
                rpc::rpc_sync("worker1", "aten::mul.Tensor", {t1, t2}));
            dist_autograd::backward(ctx.id(), {(t3 * t4 * (k + 1)).sum()});
            auto g = dist_autograd::get_gradients(ctx.id());
            // d/dt1 = t2 * t4 * (k + 1), exact in small integers.
            at::Tensor want = (t2 * t4 * (k + 1)).detach();
            at::Tensor got = g.at(t1);
            for (int64_t i = 0; i < 9; ++i) {
              good = good && static_cast<const double*>(got.data_ptr())[i] ==
                                 static_cast<const double*>(want.data_ptr())[i];
            }
          }
          ok[k] = good ? 1 : 0;
        });
      }
      for (auto& t : threads) t.join();
      EXPECT_THAT(ok, Each(1));
      EXPECT_TRUE(no_contexts_on("worker1"));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistAutograd, RemoteErrorDuringBackwardReachesCallerAndCleansUp) {
  auto codes = run_workers(3, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 3, o);
    if (rank == 0) {
      at::Tensor a = leaf(1);
      {
        dist_autograd::context ctx;
        at::Tensor c = as_tensor(rpc::rpc_sync("worker2", "aten::mul.Tensor", {a, a}));
        at::Tensor b = as_tensor(
            rpc::rpc_sync("worker1", "dist_autograd_test::no_derivative", {c}));
        EXPECT_EQ(live_on("worker1"), 1);
        EXPECT_EQ(live_on("worker2"), 1);
        std::string error = errorOf([&] { dist_autograd::backward(ctx.id(), {b.sum()}); });
        EXPECT_THAT(error, HasSubstr("Error on Node 1: "));
        EXPECT_THAT(error, HasSubstr("the derivative for "
                                     "'dist_autograd_test::no_derivative' is not "
                                     "implemented"));
        // The other workers dropped the context already; this one keeps it,
        // failed, until it is left.
        EXPECT_TRUE(no_contexts_on("worker1"));
        EXPECT_TRUE(no_contexts_on("worker2"));
        EXPECT_THAT(errorOf([&] { dist_autograd::backward(ctx.id(), {b.sum()}); }),
                    HasSubstr("had a backward pass that failed; use a new context"));
        EXPECT_EQ(dist_autograd::debug::live_contexts(), 1);
      }
      EXPECT_TRUE(no_local_contexts());
      // The workers still work.
      dist_autograd::context ctx;
      at::Tensor c = as_tensor(rpc::rpc_sync("worker2", "aten::mul.Tensor", {a, a}));
      dist_autograd::backward(ctx.id(), {c.sum()});
      expect_equal(dist_autograd::get_gradients(ctx.id()).at(a), a.detach() * 2, "a");
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

// A worker killed with SIGKILL during backward: the caller's backward fails
// naming it, at once (the connection closes), instead of hanging.
TEST(DistAutograd, WorkerKilledDuringBackwardFailsTheCaller) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      at::Tensor a = leaf(1);
      {
        dist_autograd::context ctx;
        at::Tensor b = as_tensor(
            rpc::rpc_sync("worker1", "dist_autograd_test::die_in_backward", {a}));
        const auto start = std::chrono::steady_clock::now();
        std::string error = errorOf([&] { dist_autograd::backward(ctx.id(), {b.sum()}); });
        EXPECT_THAT(error, HasSubstr("'worker1' (rank 1)"));
        EXPECT_THAT(error, HasSubstr("unreachable or died"));
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
      }
      EXPECT_TRUE(no_local_contexts());
      // (Whether shutdown reports the dead worker is rpc's business.)
      errorOf([] { rpc::shutdown(); });
      return;
    }
    rpc::shutdown();
  });
  EXPECT_EQ(codes[0], 0);
  EXPECT_EQ(codes[1], 128 + SIGKILL);
}

TEST(DistAutograd, ThousandContextsLeaveNoneBehind) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      at::Tensor t1 = leaf(1), t2 = leaf(2);
      int64_t last = -1;
      for (int i = 0; i < 1000; ++i) {
        dist_autograd::context ctx;
        EXPECT_GT(ctx.id(), last);
        last = ctx.id();
        at::Tensor t3 = as_tensor(rpc::rpc_sync("worker1", "aten::add.Tensor", {t1, t2}));
        if (i % 100 == 0) dist_autograd::backward(ctx.id(), {t3.sum()});
      }
      EXPECT_TRUE(no_local_contexts());
      EXPECT_TRUE(no_contexts_on("worker1"));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

// f(x) = sum(exp(rpc(x * w))): the gradient from the distributed backward
// against central differences of f computed through the same RPC.
TEST(DistAutograd, GradientThroughRpcMatchesFiniteDifferences) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      at::Tensor x = leaf(1) / 10, w = leaf(2, false) / 10;
      x = x.detach().requires_grad_(true);
      auto f = [&](const at::Tensor& in) {
        return as_tensor(rpc::rpc_sync("worker1", "aten::mul.Tensor", {in, w})).exp().sum();
      };
      at::Tensor analytic;
      {
        dist_autograd::context ctx;
        dist_autograd::backward(ctx.id(), {f(x)});
        analytic = dist_autograd::get_gradients(ctx.id()).at(x);
      }
      const double eps = 1e-6;
      for (int64_t i = 0; i < 9; ++i) {
        at::Tensor plus = x.detach().clone(), minus = x.detach().clone();
        static_cast<double*>(plus.data_ptr())[i] += eps;
        static_cast<double*>(minus.data_ptr())[i] -= eps;
        const double numeric =
            (f(plus).item<double>() - f(minus).item<double>()) / (2 * eps);
        EXPECT_NEAR(static_cast<const double*>(analytic.data_ptr())[i], numeric, 1e-6)
            << "element " << i;
      }
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(DistAutograd, UsageErrors) {
  auto codes = run_workers(1, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 1, o);
    dist_autograd::context ctx;
    EXPECT_THAT(errorOf([] { dist_autograd::context nested; }),
                HasSubstr("contexts do not nest"));
    at::Tensor x = leaf(1);
    EXPECT_THAT(errorOf([&] { dist_autograd::backward(ctx.id(), {x * 2}); }),
                HasSubstr("the roots must have one element"));
    EXPECT_THAT(errorOf([&] { dist_autograd::backward(ctx.id(), {leaf(1, false).sum()}); }),
                HasSubstr("root 0 does not require grad"));
    // A call to oneself records a send/recv pair too.
    at::Tensor y = as_tensor(rpc::rpc_sync("worker0", "aten::mul.Tensor", {x, x}));
    dist_autograd::backward(ctx.id(), {y.sum()});
    expect_equal(dist_autograd::get_gradients(ctx.id()).at(x), x.detach() * 2, "x");
    // A local Node fails while the send function of y still waits for its
    // gradients (which can then never come): the pass ends with the error.
    static auto no_derivative = c10::Dispatcher::singleton()
                                    .findSchemaOrThrow("dist_autograd_test::no_derivative", "")
                                    .typed<at::Tensor(const at::Tensor&)>();
    at::Tensor z = no_derivative.call(y);
    at::Tensor loss = (z * y).sum();
    EXPECT_THAT(errorOf([&] { dist_autograd::backward(ctx.id(), {loss}); }),
                HasSubstr("the derivative for 'dist_autograd_test::no_derivative' is "
                          "not implemented"));
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

}  // namespace

namespace {

// Seed 001's last step: parameters owned by worker 1 and by worker 0 itself,
// a loss that mixes them, one DistributedOptimizer step per context;
// against the same local optimizer on the same gradients in one process.
template <class Optimizer, class Options>
void check_distributed_step(const Options& options) {
  std::vector<rpc::RRef> params = {
      rpc::remote("worker1", "dist_autograd_test::leaf", {1}),
      rpc::remote("worker1", "dist_autograd_test::leaf", {2}),
      rpc::remote("worker0", "dist_autograd_test::leaf", {3})};
  torch::distributed::optim::DistributedOptimizer<Optimizer> opt(params, options);
  std::vector<at::Tensor> local = {leaf(1), leaf(2), leaf(3)};
  Optimizer local_opt(local, options);
  for (int iter = 0; iter < 2; ++iter) {
    {
      dist_autograd::context ctx;
      at::Tensor loss = (as_tensor(params[0].to_here()) * as_tensor(params[1].to_here()) +
                         as_tensor(params[2].to_here()))
                            .sum();
      dist_autograd::backward(ctx.id(), {loss});
      opt.step(ctx.id());
    }
    local_opt.zero_grad();
    (local[0] * local[1] + local[2]).sum().backward();
    local_opt.step();
  }
  for (size_t i = 0; i < 3; ++i) {
    expect_equal(as_tensor(params[i].to_here()), local[i].detach(), "param");
  }
}

TEST(DistributedOptimizer, SgdAndAdamStepEveryOwnerAsLocally) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      check_distributed_step<torch::optim::SGD>(torch::optim::SGDOptions(0.5).momentum(0.5));
      check_distributed_step<torch::optim::Adam>(torch::optim::AdamOptions(0.25));
      rpc::RRef p = rpc::remote("worker1", "dist_autograd_test::leaf", {1});
      using DistSGD = torch::distributed::optim::DistributedOptimizer<torch::optim::SGD>;
      EXPECT_THAT(errorOf([&] { DistSGD bad({p}, torch::optim::SGDOptions(-1)); }),
                  HasSubstr("Error on Node 1: "));
      EXPECT_THAT(errorOf([&] { DistSGD bad({p}, torch::optim::SGDOptions(-1)); }),
                  HasSubstr("Invalid learning rate: -1"));
      EXPECT_TRUE(no_contexts_on("worker1"));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

}  // namespace
