// Process groups on Gloo across forked processes on loopback: every
// collective and dtype against a local computation, non-contiguous and
// empty tensors, point to point, two groups used at once, the functional
// API, timeouts, a killed rank, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <torch/distributed.h>

#include "tests/distributed/multiprocess.h"
#include "tests/distributed/process_group.h"
#include "tests/support/error_of.h"

namespace {

namespace dist = torch::distributed;
using ember_test::errorOf;
using ember_test::free_port;
using ember_test::run_group;
using ember_test::run_workers;
using ::testing::Each;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The values rank r contributes: r + 1 + i / 8 (exact in every dtype used).
at::Tensor contribution(int rank, int64_t n, at::ScalarType dtype) {
  return (at::arange(n, at::kDouble).div(8).floor() + (rank + 1)).to(dtype);
}

TEST(ProcessGroupGloo, AllreduceEveryOpAndDtypeMatchesALocalComputation) {
  static constexpr int kWorld = 3;
  auto codes = run_group(kWorld, [](int rank) {
    auto pg = dist::default_pg();
    EXPECT_EQ(pg->getRank(), rank);
    EXPECT_EQ(pg->getSize(), kWorld);
    EXPECT_EQ(pg->getBackendName(), "gloo");
    for (at::ScalarType dtype : {at::kFloat, at::kDouble, at::kHalf, at::kInt, at::kLong,
                                 at::kChar, at::kByte}) {
      for (c10d::ReduceOp::RedOpType op :
           {c10d::ReduceOp::SUM, c10d::ReduceOp::PRODUCT, c10d::ReduceOp::MIN,
            c10d::ReduceOp::MAX, c10d::ReduceOp::AVG}) {
        if (op == c10d::ReduceOp::AVG && !c10::isFloatingType(dtype)) continue;
        const int64_t n = 37;  // not a multiple of the group size
        std::vector<at::Tensor> all;
        for (int r = 0; r < kWorld; ++r) all.push_back(contribution(r, n, at::kDouble));
        at::Tensor expected = all[0].clone();
        for (int r = 1; r < kWorld; ++r) {
          if (op == c10d::ReduceOp::SUM || op == c10d::ReduceOp::AVG) expected.add_(all[r]);
          if (op == c10d::ReduceOp::PRODUCT) expected.mul_(all[r]);
          if (op == c10d::ReduceOp::MIN) expected = at::minimum(expected, all[r]);
          if (op == c10d::ReduceOp::MAX) expected = at::maximum(expected, all[r]);
        }
        if (op == c10d::ReduceOp::AVG) expected.div_(kWorld);
        at::Tensor t = contribution(rank, n, dtype);
        dist::all_reduce(t, op);
        EXPECT_TRUE(at::allclose(t.to(at::kDouble), expected.to(dtype).to(at::kDouble)))
            << c10::toString(dtype) << " " << c10d::toString(op) << " rank " << rank;
      }
    }
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, BroadcastAllgatherReduceScatterBarrierAndShapes) {
  static constexpr int kWorld = 2;
  auto codes = run_group(kWorld, [](int rank) {
    auto pg = dist::default_pg();
    // Broadcast from rank 1 into a non-contiguous tensor (a transposed view).
    at::Tensor base = at::full({3, 4}, static_cast<double>(rank), at::kFloat);
    if (rank == 1) base = at::arange(12, at::kFloat).reshape({3, 4});
    at::Tensor view = base.t();
    ASSERT_FALSE(view.is_contiguous());
    dist::broadcast(view, /*src=*/1);
    EXPECT_TRUE(at::equal(base, at::arange(12, at::kFloat).reshape({3, 4})));

    // Allgather: uneven element count, 2-d.
    at::Tensor mine = contribution(rank, 15, at::kFloat).reshape({3, 5});
    std::vector<at::Tensor> gathered = {at::empty({3, 5}), at::empty({3, 5})};
    dist::all_gather(gathered, mine);
    for (int r = 0; r < kWorld; ++r) {
      EXPECT_TRUE(at::equal(gathered[r], contribution(r, 15, at::kFloat).reshape({3, 5})));
    }

    // Reduce-scatter: rank r gets the sum over ranks of their input r.
    std::vector<at::Tensor> inputs = {contribution(rank, 5, at::kLong),
                                      contribution(rank, 5, at::kLong).mul(10)};
    at::Tensor out = at::empty({5}, at::kLong);
    dist::reduce_scatter(out, inputs);
    const int64_t scale = rank == 0 ? 1 : 10;
    EXPECT_TRUE(at::equal(out, (contribution(0, 5, at::kLong) + contribution(1, 5, at::kLong))
                                   .mul(scale)));

    // Empty tensors pass through every collective.
    at::Tensor empty = at::empty({0});
    dist::all_reduce(empty);
    dist::broadcast(empty, 0);
    dist::barrier();

    // Several tensors in one allreduce are reduced together, in place.
    std::vector<at::Tensor> two = {at::ones({4}), at::ones({4}).mul(2)};
    pg->allreduce(two)->wait();
    EXPECT_TRUE(at::equal(two[0], at::full({4}, 6.0)));
    EXPECT_TRUE(at::equal(two[1], at::full({4}, 6.0)));

    // Asynchronous: the Work completes, with the tensors as its result.
    at::Tensor a = at::ones({1000});
    auto work = dist::all_reduce(a, c10d::ReduceOp::SUM, /*async_op=*/true);
    EXPECT_TRUE(work->wait());
    EXPECT_TRUE(work->isCompleted());
    EXPECT_TRUE(work->isSuccess());
    EXPECT_EQ(work->exception(), nullptr);
    ASSERT_EQ(work->result().size(), 1u);
    EXPECT_TRUE(at::equal(a, at::full({1000}, 2.0)));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, SendAndRecvBothWaysWithTags) {
  auto codes = run_group(2, [](int rank) {
    const int peer = 1 - rank;
    // Both ranks send first: posting does not block.
    at::Tensor out = at::full({64}, static_cast<double>(rank + 1));
    at::Tensor other_tag = at::full({2}, 7.0);
    auto send = dist::default_pg();
    std::vector<at::Tensor> o = {out}, o2 = {other_tag};
    auto w1 = send->send(o, peer, /*tag=*/3);
    auto w2 = send->send(o2, peer, /*tag=*/9);
    // Receive in the other order: tags keep them apart.
    at::Tensor in9 = at::empty({2});
    at::Tensor in3 = at::zeros({8, 8}).t();  // non-contiguous receiver
    dist::recv(in9, peer, 9);
    dist::recv(in3, peer, 3);
    w1->wait();
    w2->wait();
    EXPECT_TRUE(at::equal(in9, at::full({2}, 7.0)));
    EXPECT_TRUE(at::equal(in3, at::full({8, 8}, static_cast<double>(peer + 1))));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, TwoGroupsOnOneStoreRunConcurrently) {
  const int port = free_port();
  auto codes = run_workers(2, [port](int rank, const auto&) {
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(port);
    so.isServer = rank == 0;
    so.numWorkers = 2;
    so.timeout = milliseconds(20000);
    auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
    c10d::ProcessGroupGloo::Options go;
    go.timeout = milliseconds(20000);
    auto a = c10::make_intrusive<c10d::ProcessGroupGloo>(
        c10::make_intrusive<c10d::PrefixStore>("a", store), rank, 2, go);
    auto b = c10::make_intrusive<c10d::ProcessGroupGloo>(
        c10::make_intrusive<c10d::PrefixStore>("b", store), rank, 2, go);
    std::thread other([&] {
      for (int i = 0; i < 20; ++i) {
        std::vector<at::Tensor> t = {at::full({100}, 1.0)};
        b->allreduce(t)->wait();
        EXPECT_TRUE(at::equal(t[0], at::full({100}, 2.0)));
      }
    });
    for (int i = 0; i < 20; ++i) {
      std::vector<at::Tensor> t = {at::full({100}, static_cast<double>(rank))};
      a->allreduce(t, {c10d::ReduceOp::MAX})->wait();
      EXPECT_TRUE(at::equal(t[0], at::full({100}, 1.0)));
    }
    other.join();
  });
  EXPECT_THAT(codes, Each(0));
}

// Many collectives in flight, waited for in reverse order and from another
// thread than the one that issued them, run in issue order on both ranks
// (each allreduce's result names its index).
TEST(ProcessGroupGloo, CollectivesWaitedOutOfOrderRunInIssueOrder) {
  auto codes = run_group(2, [](int rank) {
    auto pg = dist::default_pg();
    for (int round = 0; round < 5; ++round) {
      constexpr int kInFlight = 16;
      std::vector<std::vector<at::Tensor>> tensors;
      std::vector<c10::intrusive_ptr<c10d::Work>> works;
      for (int i = 0; i < kInFlight; ++i) {
        // Rank r contributes i * 10 + r: the sum is 20 i + 1 only if both
        // ranks reduce their i-th tensors together.
        tensors.push_back({at::full({64 + 1000 * (i % 3)}, 10.0 * i + rank)});
        works.push_back(pg->allreduce(tensors.back()));
      }
      std::thread waiter([&] {
        for (int i = kInFlight - 1; i >= kInFlight / 2; --i) works[i]->wait();
      });
      for (int i = 0; i < kInFlight / 2; ++i) works[i]->wait();
      waiter.join();
      for (int i = 0; i < kInFlight; ++i) {
        EXPECT_TRUE(works[i]->isCompleted());
        EXPECT_TRUE(at::equal(tensors[i][0], at::full_like(tensors[i][0], 20.0 * i + 1)))
            << "allreduce " << i << " of round " << round << " met another one";
      }
    }
  });
  EXPECT_THAT(codes, Each(0));
}

// See Note [Running a collective on its waiter]: a collective waited for
// before it started runs on the waiting thread, one queued behind it too,
// and a wait() shorter than the collective's timeout does not take it over.
TEST(ProcessGroupGloo, AWaiterRunsItsCollectiveUnlessItsTimeoutIsShorter) {
  auto codes = run_group(2, [](int rank) {
    c10::intrusive_ptr<c10d::ProcessGroup> group = dist::default_pg();
    auto* pg = dynamic_cast<c10d::ProcessGroupGloo*>(group.get());
    ASSERT_NE(pg, nullptr);
    const int64_t before = pg->collectives_run_on_waiters();
    for (int i = 0; i < 20; ++i) {
      std::vector<at::Tensor> t = {at::full({256}, static_cast<double>(rank + i))};
      pg->allreduce(t)->wait();
      EXPECT_TRUE(at::equal(t[0], at::full({256}, 2.0 * i + 1)));
    }
    // The worker, woken by each issue, may win a few; the waiter most. Under
    // ThreadSanitizer the caller's instrumented path from the issue to wait()
    // is slow enough for the worker to win all 20 (CI met 0 of 20), so there
    // the count is only printed; the default and ASan runs assert it.
    const int64_t on_waiters = pg->collectives_run_on_waiters() - before;
#if defined(__SANITIZE_THREAD__)
    std::printf("rank %d: %lld of 20 allreduces ran on the waiting thread\n", rank,
                static_cast<long long>(on_waiters));
#else
    EXPECT_GT(on_waiters, 0);
#endif
    if (rank == 1) {
      dist::default_store()->wait({"rank0_done"});  // never joins the next one
      return;
    }
    std::vector<at::Tensor> t = {at::ones({10})};
    c10d::AllreduceOptions o;
    o.timeout = milliseconds(3000);
    auto work = pg->allreduce(t, o);
    const auto start = Clock::now();
    EXPECT_THAT(errorOf([&] { work->wait(milliseconds(300)); }),
                HasSubstr("did not finish within the 300 ms given to wait()"));
    EXPECT_LT(Clock::now() - start, milliseconds(2000));
    // The worker runs it meanwhile, until Gloo's own timeout.
    EXPECT_THAT(errorOf([&] { work->wait(); }), HasSubstr("Timed out"));
    dist::default_store()->set("rank0_done", "1");
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, MeetsThroughAFileStore) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/group.store";
  std::remove(path.c_str());
  auto codes = run_workers(2, [&path](int rank, const auto&) {
    auto store = c10::make_intrusive<c10d::FileStore>(path, milliseconds(20000));
    auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, 2);
    std::vector<at::Tensor> t = {at::full({3}, static_cast<double>(rank + 1))};
    pg->allreduce(t)->wait();
    EXPECT_TRUE(at::equal(t[0], at::full({3}, 3.0)));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, ACollectiveAPeerNeverJoinsTimesOut) {
  auto codes = run_group(2, [](int rank) {
    if (rank == 1) {
      // Never joins the allreduce; waits until rank 0 has failed.
      dist::default_store()->wait({"rank0_done"});
      return;
    }
    std::vector<at::Tensor> t = {at::ones({10})};
    c10d::AllreduceOptions o;
    o.timeout = milliseconds(500);
    const auto start = Clock::now();
    const std::string error = errorOf([&] { dist::default_pg()->allreduce(t, o)->wait(); });
    const auto took = Clock::now() - start;
    EXPECT_THAT(error, HasSubstr("ProcessGroupGloo: collective failed on rank 0 of 2"));
    EXPECT_THAT(error, HasSubstr("Timed out"));
    EXPECT_LT(took, milliseconds(5000));
    dist::default_store()->set("rank0_done", "1");
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, AKilledRankMakesTheOthersFailWithinTheTimeout) {
  auto codes = run_group(
      2,
      [](int rank) {
        if (rank == 1) {
          std::fflush(stdout);
          _exit(0);  // dies without a word
        }
        std::this_thread::sleep_for(milliseconds(200));
        std::vector<at::Tensor> t = {at::ones({1 << 16})};
        const auto start = Clock::now();
        const std::string error = errorOf([&] { dist::default_pg()->allreduce(t)->wait(); });
        EXPECT_LT(Clock::now() - start, milliseconds(15000));
        EXPECT_THAT(error, HasSubstr("ProcessGroupGloo: collective failed on rank 0 of 2"));
        EXPECT_THAT(error, HasSubstr(" is rank 1: it exited, crashed or lost its connection)"));
        std::fprintf(stderr, "the survivor's error: %s\n", error.c_str());
        std::fflush(stderr);
        std::_Exit(::testing::Test::HasFailure() ? 1 : 0);  // the store's server is gone too
      },
      milliseconds(10000));
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, BadArgumentsAreRefusedWithTheReason) {
  auto codes = run_group(2, [](int rank) {
    auto pg = dist::default_pg();
    std::vector<at::Tensor> b = {at::ones({2}, at::kBool)};
    EXPECT_THAT(errorOf([&] { pg->allreduce(b); }),
                HasSubstr("ProcessGroupGloo: allreduce does not support dtype Bool"));
    std::vector<at::Tensor> mixed = {at::ones({2}), at::ones({3})};
    EXPECT_THAT(errorOf([&] { pg->allreduce(mixed); }),
                HasSubstr("tensor 1 is Float [3] but tensor 0 is Float [2]"));
    std::vector<at::Tensor> ints = {at::ones({2}, at::kInt)};
    EXPECT_THAT(errorOf([&] { pg->allreduce(ints, {c10d::ReduceOp::AVG}); }),
                HasSubstr("allreduce with AVG needs floating-point tensors"));
    std::vector<at::Tensor> none;
    EXPECT_THAT(errorOf([&] { pg->allreduce(none); }), HasSubstr("needs at least one tensor"));
    std::vector<at::Tensor> one = {at::ones({2})};
    c10d::BroadcastOptions bo;
    bo.rootRank = 5;
    EXPECT_THAT(errorOf([&] { pg->broadcast(one, bo); }),
                HasSubstr("broadcast: rootRank 5 is outside the group of size 2"));
    EXPECT_THAT(errorOf([&] { pg->send(one, rank, 0); }),
                HasSubstr("is not another rank of the group of size 2"));
    std::vector<std::vector<at::Tensor>> outs = {{at::empty({2})}};
    EXPECT_THAT(errorOf([&] { pg->allgather(outs, one); }),
                HasSubstr("allgather needs one output tensor per rank (2), got 1"));
    dist::InitProcessGroupOptions again;
    EXPECT_THAT(errorOf([&] { dist::init_process_group("gloo", again); }),
                HasSubstr("the default process group is already initialized"));
    EXPECT_THAT(errorOf([&] { dist::init_process_group("mpi", again); }),
                HasSubstr("unknown backend 'mpi'"));
    // The group still works after the refusals.
    dist::all_reduce(one[0]);
    EXPECT_TRUE(at::equal(one[0], at::full({2}, 2.0)));
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(ProcessGroupGloo, WithoutAGroupTheFunctionsSaySo) {
  auto codes = run_workers(1, [](int, const auto&) {
    EXPECT_FALSE(dist::is_initialized());
    at::Tensor t = at::ones({1});
    EXPECT_THAT(errorOf([&] { dist::all_reduce(t); }),
                HasSubstr("the default process group is not initialized; call "
                          "init_process_group() first"));
    EXPECT_THAT(errorOf([] { dist::destroy_process_group(); }),
                HasSubstr("no process group is initialized"));
    ::unsetenv("RANK");
    ::unsetenv("MASTER_ADDR");
    EXPECT_THAT(errorOf([] { dist::init_process_group("gloo"); }),
                HasSubstr("WORLD_SIZE is not set"));
    dist::InitProcessGroupOptions o;
    o.init_method = "file:///tmp/x";
    o.rank = 0;
    o.world_size = 1;
    EXPECT_THAT(errorOf([&] { dist::init_process_group("gloo", o); }),
                HasSubstr("init_method 'file:///tmp/x' is not supported"));
    EXPECT_THAT(errorOf([] { dist::init_process_group("nccl"); }),
                HasSubstr("the \"nccl\" backend is not in this program: link "
                          "//distributed/c10d:nccl"));
    const dist::ProcessGroupFactory none;
    EXPECT_THAT(errorOf([&] { dist::register_process_group_backend("gloo", none); }),
                HasSubstr("the name 'gloo' cannot be registered"));
    EXPECT_THAT(errorOf([&] { dist::register_process_group_backend("mine", none); }),
                HasSubstr("the factory for 'mine' is empty"));
  });
  EXPECT_THAT(codes, Each(0));
}

// A backend registered by a library (as ProcessGroupNCCL.cc registers
// "nccl") is what init_process_group(name) makes, over the rendezvous store
// with the rank, size and timeout: here one that wraps Gloo, on 2 ranks.
TEST(InitProcessGroup, MakesARegisteredBackendsGroup) {
  const int port = free_port();
  auto codes = run_workers(2, [port](int rank, const auto&) {
    int made = 0;
    dist::register_process_group_backend(
        "wrapped_gloo", [&made, rank](const c10::intrusive_ptr<c10d::Store>& store, int r,
                                      int size, std::chrono::milliseconds timeout) {
          ++made;
          EXPECT_EQ(r, rank);
          EXPECT_EQ(size, 2);
          EXPECT_EQ(timeout, std::chrono::milliseconds(12345));
          c10d::ProcessGroupGloo::Options options;
          options.timeout = timeout;
          return c10::intrusive_ptr<c10d::ProcessGroup>(
              c10::make_intrusive<c10d::ProcessGroupGloo>(store, r, size, options));
        });
    dist::InitProcessGroupOptions o;
    o.init_method = "tcp://127.0.0.1:" + std::to_string(port);
    o.rank = rank;
    o.world_size = 2;
    o.timeout = std::chrono::milliseconds(12345);
    dist::init_process_group("wrapped_gloo", o);
    EXPECT_EQ(made, 1);
    EXPECT_EQ(dist::default_pg()->getBackendName(), "gloo");
    at::Tensor t = at::full({3}, static_cast<double>(rank + 1));
    dist::all_reduce(t);
    EXPECT_TRUE(t.equal(at::full({3}, 3.0)));
    dist::destroy_process_group();
  });
  EXPECT_THAT(codes, Each(0));
}

}  // namespace
