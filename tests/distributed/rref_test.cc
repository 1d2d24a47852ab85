// RRef between processes: remote()/to_here(), owner queries, the fork
// protocol (an RRef passed to a third worker, to its owner, from its owner),
// reference counting down to deletion on the owner, errors surfacing on
// use, and no live RRef after shutdown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "distributed/rpc/rpc.h"
#include "tests/distributed/multiprocess.h"
#include "tests/support/error_of.h"

namespace rpc = torch::distributed::rpc;
using ember_test::errorOf;
using ember_test::run_workers;
using ember_test::worker_name;
using ::testing::Each;
using ::testing::HasSubstr;

namespace {

at::Tensor as_tensor(const c10::IValue& v) { return at::Tensor(v.toTensorBase()); }

void expect_values(const at::Tensor& t, double value, int64_t n) {
  ASSERT_EQ(t.numel(), n);
  at::Tensor d = t.to(at::kDouble).contiguous();
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(static_cast<const double*>(d.data_ptr())[i], value) << "at " << i;
  }
}

// {owners, users} live on `worker`, asked over RPC.
std::vector<int64_t> live_on(const std::string& worker) {
  return rpc::rpc_sync(worker, "rpc_test::live_rrefs", {}).toIntVector();
}

// Polls until `worker` has `owners` owner RRefs (deletes are asynchronous).
bool wait_owners(const std::string& worker, int64_t owners) {
  for (int i = 0; i < 300; ++i) {
    if (live_on(worker)[0] == owners) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(RRef, RemoteToHereAndOwnerQueries) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      rpc::RRef rr = rpc::remote("worker1", "aten::add.Scalar", {at::ones({2}), 3});
      expect_values(as_tensor(rr.to_here()), 4.0, 2);
      expect_values(as_tensor(rr.to_here(/*timeout=*/5)), 4.0, 2);
      EXPECT_EQ(rr.owner().name, "worker1");
      EXPECT_EQ(rr.owner().id, 1);
      EXPECT_EQ(rr.owner_name(), "worker1");
      EXPECT_FALSE(rr.is_owner());
      // The confirmation (remote()'s answer) may arrive after to_here's.
      for (int i = 0; i < 200 && !rr.confirmed_by_owner(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      EXPECT_TRUE(rr.confirmed_by_owner());
      EXPECT_THAT(errorOf([&] { rr.local_value(); }),
                  HasSubstr("RRef::local_value: this worker ('worker0') is not the owner of "
                            "RRef 0:"));
      EXPECT_EQ(live_on("worker1"), (std::vector<int64_t>{1, 0}));
      EXPECT_EQ(rpc::debug::rref_counts().users, 1);
      // remote() to oneself: an owner RRef.
      rpc::RRef mine = rpc::remote("worker0", "aten::mul.Scalar", {at::ones({3}), 2});
      EXPECT_TRUE(mine.is_owner());
      expect_values(as_tensor(mine.local_value()), 2.0, 3);
      expect_values(as_tensor(mine.to_here()), 2.0, 3);
      EXPECT_EQ(rpc::debug::rref_counts().owners, 1);
    }
    rpc::shutdown();
    EXPECT_EQ(rpc::debug::rref_counts().owners, 0);
    EXPECT_EQ(rpc::debug::rref_counts().users, 0);
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(RRef, TheOwnerDeletesTheValueWhenTheLastUserIsGone) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      {
        rpc::RRef rr = rpc::remote("worker1", "aten::add.Scalar", {at::ones({2}), 1});
        rpc::RRef copy = rr;  // copies share one user reference
        expect_values(as_tensor(copy.to_here()), 2.0, 2);
        EXPECT_EQ(live_on("worker1")[0], 1);
        EXPECT_EQ(rpc::debug::rref_counts().users, 1);
      }
      EXPECT_EQ(rpc::debug::rref_counts().users, 0);
      EXPECT_TRUE(wait_owners("worker1", 0));
      // Dropped before it was even confirmed: the delete waits for the
      // confirmation, then goes out.
      { rpc::remote("worker1", "rpc_test::sleep_ms", {int64_t{100}}); }
      EXPECT_TRUE(wait_owners("worker1", 0));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(RRef, ForkedToAThirdWorkerToItsOwnerAndFromItsOwner) {
  auto codes = run_workers(3, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 3, o);
    if (rank == 0) {
      rpc::RRef rr = rpc::remote("worker1", "aten::add.Scalar", {at::ones({2}), 3});
      // A user passes its RRef to a third worker: worker2 forks it (fork
      // request to worker1, child accept to worker0), fetches the value and
      // releases its fork before answering.
      expect_values(as_tensor(rpc::rpc_sync("worker2", "aten::add.Tensor",
                                            {rr, at::ones({2})})),
                    5.0, 2);
      EXPECT_EQ(live_on("worker2"), (std::vector<int64_t>{0, 0}));
      EXPECT_EQ(live_on("worker1"), (std::vector<int64_t>{1, 0}));
      // To its owner: resolved there without a fork.
      expect_values(as_tensor(rpc::rpc_sync("worker1", "aten::mul.Tensor",
                                            {rr, rr})),
                    16.0, 2);
      // As an argument of remote(), itself an RRef.
      rpc::RRef chained =
          rpc::remote("worker2", "aten::add.Scalar", {rr, 10});
      expect_values(as_tensor(chained.to_here()), 14.0, 2);
      // From its owner to a user: the owner records the fork itself.
      rpc::RRef mine = rpc::remote("worker0", "aten::full",
                                   {std::vector<int64_t>{2}, 7.0});
      expect_values(as_tensor(rpc::rpc_sync("worker2", "aten::add.Tensor",
                                            {mine, at::ones({2})})),
                    8.0, 2);
      EXPECT_EQ(live_on("worker2")[1], 0);
      EXPECT_EQ(rpc::debug::rref_counts().owners, 1);
      rr = rpc::RRef();
      EXPECT_TRUE(wait_owners("worker1", 0));
    }
    rpc::shutdown();
    EXPECT_EQ(rpc::debug::rref_counts().owners, 0);
    EXPECT_EQ(rpc::debug::rref_counts().users, 0);
  });
  EXPECT_THAT(codes, Each(0));
}

// remote() returns before its REMOTE_CALL is handled, and a call that
// passes the new RRef to its owner travels separately: the owner may see
// the call first. It waits for the value instead of refusing the RRef
// (it once answered "not known to its owner; it was deleted", now and then).
TEST(RRef, AFreshRRefPassedToItsOwnerWaitsForItsValue) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      for (int i = 0; i < 200; ++i) {
        rpc::RRef rr = rpc::remote("worker1", "aten::add.Scalar", {at::ones({2}), i});
        expect_values(as_tensor(rpc::rpc_sync("worker1", "aten::mul.Tensor", {rr, rr})),
                      static_cast<double>((1 + i) * (1 + i)), 2);
      }
      EXPECT_TRUE(wait_owners("worker1", 0));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(RRef, ErrorsOfRemoteSurfaceOnUse) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      rpc::RRef bad = rpc::remote("worker1", "rpc_test::fail", {"no value"});
      EXPECT_EQ(errorOf([&] { bad.to_here(); }), "Error on Node 1: no value");
      EXPECT_FALSE(bad.confirmed_by_owner());
      // remote() past its timeout: the next use reports the timeout.
      rpc::RRef slow = rpc::remote("worker1", "rpc_test::sleep_ms", {int64_t{600}}, 0.1);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      EXPECT_THAT(errorOf([&] { slow.to_here(); }),
                  HasSubstr("rpc: remote(rpc_test::sleep_ms) to 'worker1' (rank 1) timed out "
                            "after 0.1 s"));
      // to_here's own timeout.
      rpc::RRef later = rpc::remote("worker1", "rpc_test::sleep_ms", {int64_t{600}});
      EXPECT_THAT(errorOf([&] { later.to_here(0.1); }),
                  HasSubstr("rpc: to_here() to 'worker1' (rank 1) timed out after 0.1 s"));
      EXPECT_EQ(later.to_here().toInt(), 600);
      // Once the handles are gone, worker1 holds no owner entry: not for the
      // failed op, and not for the remote() that timed out on this side
      // (its delete may even reach worker1 before the call itself).
      bad = rpc::RRef();
      slow = rpc::RRef();
      later = rpc::RRef();
      EXPECT_TRUE(wait_owners("worker1", 0)) << live_on("worker1")[0];
      EXPECT_EQ(rpc::debug::rref_counts().users, 0);
    }
    rpc::shutdown();
    EXPECT_EQ(rpc::debug::rref_counts().owners, 0);
    EXPECT_EQ(rpc::debug::rref_counts().users, 0);
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(RRef, ShutdownReleasesLiveUsersAndLaterUseFails) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    rpc::RRef kept;
    if (rank == 0) {
      kept = rpc::remote("worker1", "aten::add.Scalar", {at::ones({1}), 1});
      kept.to_here();
      EXPECT_EQ(rpc::debug::rref_counts().users, 1);
    }
    rpc::shutdown();
    // The user still held on worker0 was released by shutdown; the owner
    // entry on worker1 is gone.
    EXPECT_EQ(rpc::debug::rref_counts().owners, 0);
    EXPECT_EQ(rpc::debug::rref_counts().users, 0);
    if (rank == 0) {
      EXPECT_THAT(errorOf([&] { kept.to_here(); }),
                  HasSubstr("RRef::to_here: RPC has been shut down; the RRef 0:"));
    }
    EXPECT_THAT(errorOf([] { rpc::RRef().to_here(); }),
                HasSubstr("RRef::to_here: the RRef is empty"));
  });
  EXPECT_THAT(codes, Each(0));
}

}  // namespace
