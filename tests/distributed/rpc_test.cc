// RPC between processes on loopback: rpc_sync/rpc_async/remote, every
// IValue kind through a round trip, error propagation, timeouts, worker
// info, rendezvous errors. Each test forks its workers (multiprocess.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <string>
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

// Same dtype, sizes and bytes (the received tensor is contiguous).
void expect_same_tensor(const at::Tensor& expected, const at::Tensor& got) {
  ASSERT_TRUE(got.defined());
  EXPECT_EQ(got.scalar_type(), expected.scalar_type());
  EXPECT_EQ(got.sizes().vec(), expected.sizes().vec());
  EXPECT_TRUE(got.is_contiguous());
  at::Tensor e = expected.contiguous();
  ASSERT_EQ(got.nbytes(), e.nbytes());
  if (e.nbytes() > 0) {  // an empty tensor may have no memory at all
    EXPECT_EQ(std::memcmp(got.data_ptr(), e.data_ptr(), e.nbytes()), 0);
  }
}

TEST(Rpc, SyncAndAsyncCallsRunOperatorsOnTheOtherWorker) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    const std::string peer = worker_name(1 - rank);
    at::Tensor a = at::full({3, 3}, 1.5 + rank);
    at::Tensor b = at::full({3, 3}, 2.0);
    // alpha is left out: the callee fills the schema's default (1).
    at::Tensor sum = as_tensor(rpc::rpc_sync(peer, "aten::add.Tensor", {a, b}));
    expect_same_tensor(at::full({3, 3}, 3.5 + rank), sum);
    at::Tensor scaled =
        as_tensor(rpc::rpc_sync(peer, "aten::add.Tensor", {a, b, 3}));
    expect_same_tensor(at::full({3, 3}, 7.5 + rank), scaled);
    // rpc_async: a Future, with then().
    auto fut = rpc::rpc_async(peer, "aten::mul.Tensor", {a, b});
    auto doubled = fut->then([](rpc::Future& f) {
      return c10::IValue(as_tensor(f.value()) * 2);
    });
    doubled->waitAndThrow();
    EXPECT_TRUE(fut->completed());
    EXPECT_FALSE(fut->hasError());
    expect_same_tensor(at::full({3, 3}, (1.5 + rank) * 4), as_tensor(doubled->value()));
    // A call to oneself works too.
    at::Tensor self_sum =
        as_tensor(rpc::rpc_sync(worker_name(rank), "aten::add.Tensor", {a, b}));
    expect_same_tensor(at::full({3, 3}, 3.5 + rank), self_sum);
    // Worker info.
    EXPECT_EQ(rpc::get_worker_info().name, worker_name(rank));
    EXPECT_EQ(rpc::get_worker_info().id, rank);
    EXPECT_EQ(rpc::get_worker_info(peer).id, 1 - rank);
    EXPECT_EQ(rpc::get_all_worker_infos().size(), 2u);
    EXPECT_THAT(errorOf([&] { rpc::get_worker_info("nobody"); }),
                HasSubstr("unknown worker 'nobody'; the workers are 'worker0' 'worker1'"));
    // Neither server waits out its 2 s grace for the other's idle blocking
    // streams: the idle sweep reads them and each worker closes its
    // blocking connections before its server stops (Note [Idle blocking
    // streams] in distributed/rpc/transport_client.cc).
    const auto start = std::chrono::steady_clock::now();
    rpc::shutdown();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1500));
    EXPECT_FALSE(rpc::is_initialized());
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(Rpc, EveryValueKindRoundTrips) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      const std::string to = "worker1";
      // Tensors of every dtype.
      for (auto dtype : {at::kByte, at::kChar, at::kShort, at::kInt, at::kLong,
                         at::kHalf, at::kFloat, at::kDouble, at::kBool,
                         at::kBFloat16}) {
        at::Tensor t = at::arange(24).remainder(7).to(dtype).reshape({2, 3, 4});
        expect_same_tensor(t, as_tensor(rpc::rpc_sync(to, "rpc_test::echo_tensor", {t})));
      }
      // A non-contiguous view arrives contiguous with the same values; so
      // do 0-dim, empty and large (zero-copy path) tensors.
      at::Tensor base = at::arange(12, at::kFloat).reshape({3, 4});
      at::Tensor view = base.t();
      ASSERT_FALSE(view.is_contiguous());
      expect_same_tensor(view, as_tensor(rpc::rpc_sync(to, "rpc_test::echo_tensor", {view})));
      at::Tensor scalar = at::full({}, 4.25);
      expect_same_tensor(scalar, as_tensor(rpc::rpc_sync(to, "rpc_test::echo_tensor", {scalar})));
      at::Tensor empty = at::empty({0, 5}, at::kDouble);
      expect_same_tensor(empty, as_tensor(rpc::rpc_sync(to, "rpc_test::echo_tensor", {empty})));
      at::Tensor big = at::arange(1 << 20, at::kFloat);
      expect_same_tensor(big, as_tensor(rpc::rpc_sync(to, "rpc_test::echo_tensor", {big})));
      // Scalars, strings, lists, devices, None.
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_float", {2.5}).toDouble(), 2.5);
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_int", {int64_t{-7}}).toInt(), -7);
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_bool", {true}).toBool(), true);
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_str", {std::string("h\0i", 3)})
                    .toStringRef(),
                std::string("h\0i", 3));
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_device", {c10::Device(c10::kCUDA, 1)})
                    .toDevice(),
                c10::Device(c10::kCUDA, 1));
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_ints", {std::vector<int64_t>{1, -2, 3}})
                    .toIntVector(),
                (std::vector<int64_t>{1, -2, 3}));
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_ints", {std::vector<int64_t>{}})
                    .toIntVector(),
                std::vector<int64_t>{});
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_floats", {std::vector<double>{0.5, -1e300}})
                    .toDoubleVector(),
                (std::vector<double>{0.5, -1e300}));
      EXPECT_EQ(rpc::rpc_sync(to, "rpc_test::echo_bools", {std::vector<bool>{true, false}})
                    .toBoolVector(),
                (std::vector<bool>{true, false}));
      std::vector<at::Tensor> list = {at::full({2}, 1.0), at::arange(3)};
      auto got = rpc::rpc_sync(to, "rpc_test::echo_tensors", {list}).toTensorVector();
      ASSERT_EQ(got.size(), 2u);
      expect_same_tensor(list[0], at::Tensor(got[0]));
      expect_same_tensor(list[1], at::Tensor(got[1]));
      std::vector<std::optional<at::Tensor>> opt = {at::full({1}, 9.0), std::nullopt};
      auto got_opt =
          rpc::rpc_sync(to, "rpc_test::echo_opt_tensors", {opt}).toOptionalTensorVector();
      ASSERT_EQ(got_opt.size(), 2u);
      ASSERT_TRUE(got_opt[0].has_value());
      expect_same_tensor(*opt[0], at::Tensor(*got_opt[0]));
      EXPECT_FALSE(got_opt[1].has_value());
      EXPECT_TRUE(rpc::rpc_sync(to, "rpc_test::echo_opt", {c10::IValue()}).isNone());
      // Several results: tensors come back as a Tensor list; a mix with other
      // kinds is refused with the reason (Ember's IValue has no tuple).
      auto pair = rpc::rpc_sync(to, "rpc_test::echo_pair", {list[0], list[1]})
                      .toTensorVector();
      ASSERT_EQ(pair.size(), 2u);
      expect_same_tensor(list[0], at::Tensor(pair[0]));
      expect_same_tensor(list[1], at::Tensor(pair[1]));
      EXPECT_THAT(errorOf([&] {
                    rpc::rpc_sync(to, "rpc_test::echo_tensor_int",
                                  {list[0], int64_t{3}});
                  }),
                  HasSubstr("rpc_test::echo_tensor_int returns 2 values, not all "
                            "tensors; Ember's IValue has no tuple"));
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(Rpc, CalleeErrorsComeBackWithTheNodePrefix) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      EXPECT_EQ(errorOf([] { rpc::rpc_sync("worker1", "rpc_test::fail", {"boom here"}); }),
                "Error on Node 1: boom here");
      // The op's own checks, raised on the callee.
      EXPECT_THAT(errorOf([] {
                    rpc::rpc_sync("worker1", "aten::add.Tensor",
                                  {at::ones({2}), at::ones({3})});
                  }),
                  HasSubstr("Error on Node 1: add"));
      EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker1", "nope::missing", {}); }),
                  HasSubstr("Error on Node 1: rpc: no operator 'nope::missing'"));
      EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker1", "aten::add", {at::ones({2})}); }),
                  HasSubstr("has several overloads; name one:"));
      EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker1", "rpc_test::sleep_ms", {}); }),
                  HasSubstr("argument '_0' (0) has no default; pass it explicitly"));
      EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker9", "aten::add.Tensor", {}); }),
                  HasSubstr("unknown worker 'worker9'"));
      // A Generator cannot be sent; nothing leaves the caller.
      EXPECT_THAT(errorOf([] {
                    rpc::rpc_sync("worker1", "rpc_test::echo_opt",
                                  {c10::IValue(at::Generator())});
                  }),
                  HasSubstr("rpc: cannot send Generator"));
      // rpc_async reports the same error through the Future.
      auto fut = rpc::rpc_async("worker1", "rpc_test::fail", {"later"});
      fut->wait();
      EXPECT_TRUE(fut->hasError());
      EXPECT_EQ(fut->tryRetrieveErrorMessage(), "Error on Node 1: later");
      // The worker still serves calls.
      EXPECT_EQ(rpc::rpc_sync("worker1", "rpc_test::echo_int", {int64_t{5}}).toInt(), 5);
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(Rpc, ASlowCalleePastTheDeadlineTimesOutAndItsReplyIsDropped) {
  auto codes = run_workers(2, [](int rank, rpc::RpcBackendOptions o) {
    o.rpc_timeout = 0.3;  // the default for calls without their own
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      auto start = std::chrono::steady_clock::now();
      EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker1", "rpc_test::sleep_ms", {int64_t{1500}}); }),
                  HasSubstr("rpc: rpc(rpc_test::sleep_ms) to 'worker1' (rank 1) timed out "
                            "after 0.3 s; a late reply is dropped"));
      EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1200));
      // Per-call timeouts override the default; 0 means none.
      EXPECT_THAT(errorOf([] {
                    rpc::rpc_sync("worker1", "rpc_test::sleep_ms", {int64_t{800}}, 0.1);
                  }),
                  HasSubstr("timed out after 0.1 s"));
      // The two late replies reach this caller's stream during this call
      // (at ~1.1 s and ~1.5 s) and are dropped: it gets its own.
      EXPECT_EQ(rpc::rpc_sync("worker1", "rpc_test::sleep_ms", {int64_t{1300}}, 0).toInt(), 1300);
      EXPECT_EQ(rpc::rpc_sync("worker1", "rpc_test::sleep_ms", {int64_t{10}}, 5).toInt(), 10);
      // An asynchronous call's deadline, kept by the transport while the
      // call waits on the peer's stream; the stream goes on serving.
      start = std::chrono::steady_clock::now();
      auto late = rpc::rpc_async("worker1", "rpc_test::sleep_ms", {int64_t{800}}, 0.1);
      late->wait();
      EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(600));
      ASSERT_TRUE(late->hasError());
      EXPECT_THAT(late->tryRetrieveErrorMessage(),
                  HasSubstr("rpc: rpc(rpc_test::sleep_ms) to 'worker1' (rank 1) timed out "
                            "after 0.1 s; a late reply is dropped"));
      auto on_time = rpc::rpc_async("worker1", "rpc_test::sleep_ms", {int64_t{10}}, 5);
      on_time->waitAndThrow();
      EXPECT_EQ(on_time->value().toInt(), 10);
    }
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

std::vector<int64_t> shared_counts_of(const std::string& worker) {
  return rpc::rpc_sync(worker, "rpc_test::shared_counts", {}).toIntVector();
}

// A callee drops a response's shared tensors when its caller releases them,
// which the caller sends without waiting: poll for it.
void expect_nothing_pinned_on(const std::string& worker) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<int64_t> c = shared_counts_of(worker);
  while (c[2] != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    c = shared_counts_of(worker);
  }
  EXPECT_EQ(c[2], 0) << worker << " still keeps shared tensors alive";
}

// Note [Shared tensors] in distributed/rpc/peer_memory.h: between workers
// of one host, tensors of 64 KiB or more are read from the sender's memory.
TEST(Rpc, LargeTensorsBetweenWorkersOfOneHostAreReadFromTheSendersMemory) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      at::Tensor a = at::randn({512, 512});  // 1 MiB each
      at::Tensor b = at::randn({512, 512});
      // The first call tells worker1 that this worker reads its memory; its
      // answer tells this worker the same of worker1.
      for (int i = 0; i < 3; ++i) {
        expect_same_tensor(a + b, as_tensor(rpc::rpc_sync("worker1", "aten::add.Tensor", {a, b})));
      }
      auto mine = rpc::debug::shared_tensor_counts();
      EXPECT_GE(mine.sent, 4);      // both arguments of the later calls
      EXPECT_GE(mine.received, 3);  // every result
      EXPECT_EQ(mine.pinned_bytes, 0);  // arguments die with their calls
      std::vector<int64_t> theirs = shared_counts_of("worker1");
      EXPECT_EQ(theirs[1], mine.sent);
      EXPECT_EQ(theirs[0], mine.received);
      // Small tensors still travel in the frame.
      rpc::rpc_sync("worker1", "aten::add.Tensor", {at::ones({3, 3}), at::ones({3, 3})});
      EXPECT_EQ(rpc::debug::shared_tensor_counts().sent, mine.sent);
      // Shared and sent tensors in one list, a view made contiguous, a
      // bool tensor, a tensor pair.
      at::Tensor view = at::randn({512, 1024}).t();
      at::Tensor flags = at::rand({400000}) > 0.5;
      std::vector<at::TensorBase> list{a, at::ones({7}), view, flags};
      auto back = rpc::rpc_sync("worker1", "rpc_test::echo_tensors", {c10::IValue(list)})
                      .toTensorVector();
      ASSERT_EQ(back.size(), 4u);
      expect_same_tensor(a, at::Tensor(back[0]));
      expect_same_tensor(at::ones({7}), at::Tensor(back[1]));
      expect_same_tensor(view, at::Tensor(back[2]));
      expect_same_tensor(flags, at::Tensor(back[3]));
      // Eight calls in flight at once.
      std::vector<c10::intrusive_ptr<rpc::Future>> futs;
      for (int i = 0; i < 8; ++i) {
        futs.push_back(rpc::rpc_async("worker1", "aten::mul.Scalar", {a, double(i)}));
      }
      for (int i = 0; i < 8; ++i) {
        futs[i]->waitAndThrow();
        expect_same_tensor(a * double(i), as_tensor(futs[i]->value()));
      }
      // An RRef's value fetched with to_here().
      rpc::RRef rr = rpc::remote("worker1", "aten::add.Scalar", {a, 1});
      expect_same_tensor(a + 1, as_tensor(rr.to_here()));
      // Every result was released: worker1 keeps nothing for this worker.
      expect_nothing_pinned_on("worker1");
      EXPECT_GE(rpc::debug::shared_tensor_counts().received, mine.received + 12);
    }
    rpc::shutdown();
    EXPECT_EQ(rpc::debug::shared_tensor_counts().pinned_bytes, 0);
  });
  EXPECT_THAT(codes, Each(0));
}

// One worker with EMBER_RPC_SHARED_MEMORY=0 neither reads nor is read: both
// directions go through gRPC.
TEST(Rpc, WithSharedMemoryOffOnOneWorkerLargeTensorsGoThroughGrpc) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    if (rank == 1) setenv("EMBER_RPC_SHARED_MEMORY", "0", 1);
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    at::Tensor a = at::randn({512, 512});
    for (int i = 0; i < 3; ++i) {
      expect_same_tensor(a * 2, as_tensor(rpc::rpc_sync(worker_name(1 - rank),
                                                        "aten::mul.Scalar", {a, 2.0})));
    }
    auto c = rpc::debug::shared_tensor_counts();
    EXPECT_EQ(c.sent, 0);
    EXPECT_EQ(c.received, 0);
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

// A call that timed out may still have its shared arguments read by the
// callee: they stay alive until shutdown.
TEST(Rpc, SharedArgumentsOfACallThatTimedOutStayAliveUntilShutdown) {
  auto codes = run_workers(2, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      at::Tensor a = at::ones({512, 512});
      // Learn that worker1 reads this worker's memory.
      rpc::rpc_sync("worker1", "rpc_test::sleep_sum", {a, int64_t{0}});
      const int64_t sent = rpc::debug::shared_tensor_counts().sent;
      EXPECT_THAT(errorOf([&] {
                    rpc::rpc_sync("worker1", "rpc_test::sleep_sum", {a, int64_t{600}}, 0.1);
                  }),
                  HasSubstr("timed out after 0.1 s"));
      auto c = rpc::debug::shared_tensor_counts();
      EXPECT_EQ(c.sent, sent + 1);
      EXPECT_EQ(c.pinned_bytes, static_cast<int64_t>(a.nbytes()));
      // A call that is answered keeps nothing.
      at::Tensor sum = as_tensor(rpc::rpc_sync("worker1", "rpc_test::sleep_sum", {a, int64_t{0}}));
      EXPECT_EQ(sum.item<float>(), 512.0f * 512.0f);
      EXPECT_EQ(rpc::debug::shared_tensor_counts().pinned_bytes, static_cast<int64_t>(a.nbytes()));
    }
    rpc::shutdown();
    EXPECT_EQ(rpc::debug::shared_tensor_counts().pinned_bytes, 0);
  });
  EXPECT_THAT(codes, Each(0));
}

// shutdown(graceful=false) cancels the calls still waiting, blocking and
// asynchronous, instead of waiting for their replies.
TEST(Rpc, AnUngracefulShutdownCancelsTheCallsStillWaiting) {
  auto codes = run_workers(2, [](int rank, rpc::RpcBackendOptions o) {
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 1) {
      // Serves the slow calls past rank 0's shutdown.
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
      rpc::shutdown(/*graceful=*/false);
      return;
    }
    auto pending = rpc::rpc_async("worker1", "rpc_test::sleep_ms", {int64_t{4000}}, 0);
    std::string blocked_error;
    std::thread blocked([&] {
      blocked_error = errorOf([] { rpc::rpc_sync("worker1", "rpc_test::sleep_ms", {int64_t{4000}}, 0); });
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto start = std::chrono::steady_clock::now();
    rpc::shutdown(/*graceful=*/false);
    blocked.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1500));
    ASSERT_TRUE(pending->completed());
    ASSERT_TRUE(pending->hasError());
    for (const std::string& e : {pending->tryRetrieveErrorMessage(), blocked_error}) {
      EXPECT_THAT(e, HasSubstr("rpc: rpc(rpc_test::sleep_ms) to 'worker1' (rank 1) failed"));
      EXPECT_THAT(e, HasSubstr("CANCELLED"));
    }
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(Rpc, RendezvousRejectsADuplicateName) {
  auto codes = run_workers(3, [](int rank, rpc::RpcBackendOptions o) {
    o.init_timeout = 2;
    const std::string name = rank == 2 ? "worker1" : worker_name(rank);
    std::string err = errorOf([&] { rpc::init_rpc(name, rank, 3, o); });
    if (rank == 2 || rank == 1) {
      // Whichever of ranks 1 and 2 joined second gets the duplicate error;
      // the other, and rank 0, time out waiting for the missing rank.
      EXPECT_THAT(err, ::testing::AnyOf(
                           HasSubstr("init_rpc: duplicate name 'worker1': ranks "),
                           HasSubstr("rendezvous timed out")));
    } else {
      EXPECT_THAT(err, HasSubstr("init_rpc: rendezvous timed out after 2"));
      EXPECT_THAT(err, HasSubstr("did not join (world_size=3)"));
    }
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(Rpc, RendezvousNamesAWrongWorldSizeAndMissingRanks) {
  auto codes = run_workers(2, [](int rank, rpc::RpcBackendOptions o) {
    o.init_timeout = 1.5;
    if (rank == 1) {
      EXPECT_THAT(errorOf([&] { rpc::init_rpc("worker1", 1, 3, o); }),
                  HasSubstr("init_rpc: worker 'worker1' (rank 1) has world_size=3 but "
                            "rank 0 has world_size=2; start every worker with the same "
                            "WORLD_SIZE."));
    } else {
      EXPECT_EQ(errorOf([&] { rpc::init_rpc("worker0", 0, 2, o); }),
                "init_rpc: rendezvous timed out after 1.500000 s: rank(s) 1 did not "
                "join (world_size=2). Start every rank, or fix WORLD_SIZE.");
    }
  });
  EXPECT_THAT(codes, Each(0));
}

TEST(Rpc, ApiErrorsBeforeInitAndOnBadArguments) {
  EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker1", "aten::add.Tensor", {}); }),
              HasSubstr("rpc_sync: RPC is not initialized on this process; call "
                        "rpc::init_rpc(name, rank, world_size) first."));
  EXPECT_THAT(errorOf([] { rpc::shutdown(); }),
              HasSubstr("shutdown: RPC is not initialized"));
  EXPECT_THAT(errorOf([] { rpc::init_rpc("w", 3, 2); }),
              HasSubstr("init_rpc: rank 3 is outside [0, world_size=2)."));
  EXPECT_EQ(rpc::debug::rref_counts().owners, 0);
}

}  // namespace
