// Faults: a worker killed with SIGKILL mid-call, many concurrent calls,
// strangers on the port (wrong token, garbage frames, garbage bytes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/wire.h"
#include "tests/distributed/multiprocess.h"
#include "tests/support/error_of.h"

namespace rpc = torch::distributed::rpc;
namespace wire = torch::distributed::rpc::wire;
using ember_test::errorOf;
using ember_test::run_workers;
using ember_test::worker_name;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using Clock = std::chrono::steady_clock;

TEST(RpcFaults, ADeadWorkerFailsPendingAndNewCallsAndShutdownListsIt) {
  auto codes = run_workers(3, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, 3, o);
    if (rank == 0) {
      auto pending = rpc::rpc_async("worker2", "rpc_test::sleep_ms", {int64_t{20000}});
      const auto start = Clock::now();
      rpc::rpc_async("worker2", "rpc_test::die", {});  // worker2 kills itself
      pending->wait();
      EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
      ASSERT_TRUE(pending->hasError());
      EXPECT_THAT(pending->tryRetrieveErrorMessage(),
                  HasSubstr("rpc: rpc(rpc_test::sleep_ms) to 'worker2' (rank 2) failed: the "
                            "worker is unreachable or died"));
      const auto again = Clock::now();
      EXPECT_THAT(errorOf([] { rpc::rpc_sync("worker2", "rpc_test::echo_int", {int64_t{1}}); }),
                  HasSubstr("to 'worker2' (rank 2) failed: the worker is unreachable or died"));
      EXPECT_LT(Clock::now() - again, std::chrono::seconds(5));
    }
    if (rank != 2) {
      // The survivors keep working with each other.
      EXPECT_EQ(rpc::rpc_sync(worker_name(1 - rank), "rpc_test::echo_int", {int64_t{rank}})
                    .toInt(),
                rank);
      EXPECT_EQ(errorOf([] { rpc::shutdown(); }),
                "shutdown: completed, but these workers died before it: 'worker2' (rank 2).");
      EXPECT_FALSE(rpc::is_initialized());
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(20));  // killed before
    }
  });
  EXPECT_THAT(codes, ElementsAre(0, 0, 128 + SIGKILL));
}

TEST(RpcFaults, ManyConcurrentCallsAllCompleteExactly) {
  constexpr int kWorld = 4;
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 250;
  auto codes = run_workers(kWorld, [](int rank, const rpc::RpcBackendOptions& o) {
    rpc::init_rpc(worker_name(rank), rank, kWorld, o);
    std::atomic<int> wrong{0};
    std::atomic<int> done{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::vector<std::pair<int64_t, c10::intrusive_ptr<rpc::Future>>> futs;
        for (int i = 0; i < kCallsPerThread; ++i) {
          const int64_t v = rank * 1000000 + t * 1000 + i;
          const std::string to = worker_name((rank + 1 + i % (kWorld - 1)) % kWorld);
          futs.emplace_back(v, rpc::rpc_async(to, "aten::add.Scalar",
                                              {at::full({2}, static_cast<double>(v), at::kLong),
                                               1}));
        }
        for (auto& f : futs) {
          f.second->waitAndThrow();
          at::Tensor r(f.second->value().toTensorBase());
          const int64_t* p = static_cast<const int64_t*>(r.data_ptr());
          if (r.numel() != 2 || p[0] != f.first + 1 || p[1] != f.first + 1) ++wrong;
          ++done;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(done.load(), kThreads * kCallsPerThread);
    EXPECT_EQ(wrong.load(), 0);
    rpc::shutdown();
  });
  EXPECT_THAT(codes, Each(0));
}

// A process outside the group (rank 2 of the harness never calls init_rpc)
// calls rank 0 with a wrong token, sends garbage frames and garbage bytes.
TEST(RpcFaults, StrangersAreRefusedAndTheWorkerKeepsServing) {
  int done_pipe[2];
  ASSERT_EQ(pipe(done_pipe), 0);
  auto codes = run_workers(3, [&](int rank, const rpc::RpcBackendOptions& o) {
    const std::string address = o.init_method.substr(std::string("tcp://").size());
    if (rank == 2) {
      close(done_pipe[0]);
      // Through the agent's transport, whose gRPC code is built like
      // libgrpc (See Note [TSan and gRPC] in transport.h).
      rpc::transport::Endpoint endpoint(address, rpc::transport::Tls{});
      auto call = [&](const grpc::ByteBuffer& request) {
        rpc::transport::ClientCall c;
        c.request = request;
        c.set_wait_for_ready();
        c.set_timeout(10.0);
        return rpc::transport::call_blocking(endpoint, &c);
      };
      ember::rpc::Envelope env;
      env.set_kind(ember::rpc::OP_CALL);
      env.set_op("rpc_test::die");
      env.set_token("not-the-token");
      env.set_from_rank(1);
      grpc::Status s = call(wire::encode_plain(env));
      EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      EXPECT_EQ(s.error_message(), "the call does not carry this group's token");
      env.clear_token();
      EXPECT_EQ(call(wire::encode_plain(env)).error_code(),
                grpc::StatusCode::PERMISSION_DENIED);
      grpc::Slice junk(std::string("\x05\0\0\0garbage-bytes", 17));
      s = call(grpc::ByteBuffer(&junk, 1));
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
      EXPECT_THAT(s.error_message(), HasSubstr("rpc: bad message"));
      // The same on the peer's stream, which calls without wait_for_ready
      // take (See Note [One stream per peer] in transport.cc): a refusal and
      // a bad frame are the call's status, and the stream stays up.
      auto stream_call = [&](const grpc::ByteBuffer& request) {
        rpc::transport::ClientCall c;
        c.request = request;
        c.set_timeout(10.0);
        return rpc::transport::call_blocking(endpoint, &c);
      };
      env.set_token("not-the-token");
      s = stream_call(wire::encode_plain(env));
      EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      EXPECT_EQ(s.error_message(), "the call does not carry this group's token");
      s = stream_call(grpc::ByteBuffer(&junk, 1));
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
      EXPECT_THAT(s.error_message(), HasSubstr("rpc: bad message"));
      // A stream message without its header, or with a nonzero reserved
      // word, ends that stream with an error.
      for (std::string raw : {std::string("short"), std::string("\x01\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0x", 17)}) {
        grpc::Slice bytes(raw);
        s = rpc::transport::send_raw_stream_message(endpoint, grpc::ByteBuffer(&bytes, 1), 10.0);
        EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << raw.size();
        EXPECT_EQ(s.error_message(), "rpc: bad message: not an RPC stream message");
      }
      // Raw bytes that are not HTTP/2 at all: the connection is dropped.
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(std::stoi(address.substr(address.rfind(':') + 1)));
      inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
      ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
      std::string noise(4096, '\x7f');
      (void)!write(fd, noise.data(), noise.size());
      char buf[256];
      while (read(fd, buf, sizeof(buf)) > 0) {
      }
      close(fd);
      (void)!write(done_pipe[1], "x", 1);
      close(done_pipe[1]);
      return;
    }
    close(done_pipe[1]);
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      char c;
      EXPECT_EQ(read(done_pipe[0], &c, 1), 1);
      EXPECT_EQ(rpc::rpc_sync("worker1", "rpc_test::echo_int", {int64_t{3}}).toInt(), 3);
    }
    rpc::shutdown();
  });
  close(done_pipe[0]);
  close(done_pipe[1]);
  EXPECT_THAT(codes, Each(0));
}

// A self-signed certificate (and its key) for the name "ember-rpc" in
// `dir`, made by openssl; false when openssl is not installed.
bool make_test_certificate(const std::string& dir) {
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
      "-nodes -days 1 -subj /CN=ember-rpc -addext subjectAltName=DNS:ember-rpc "
      "-keyout " + dir + "/key.pem -out " + dir + "/cert.pem >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// TLS from certificate paths: the workers talk (rendezvous, calls, shutdown)
// and a client without TLS is refused at the handshake.
TEST(RpcTls, WorkersTalkOverTlsAndPlainClientsAreRefused) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir =
      std::string(tmp ? tmp : "/tmp") + "/tls-" + std::to_string(getpid());
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  if (!make_test_certificate(dir)) GTEST_SKIP() << "openssl is not installed";
  int done_pipe[2];
  ASSERT_EQ(pipe(done_pipe), 0);
  auto codes = run_workers(3, [&](int rank, const rpc::RpcBackendOptions& plain) {
    const std::string address =
        plain.init_method.substr(std::string("tcp://").size());
    if (rank == 2) {
      close(done_pipe[0]);
      rpc::transport::Endpoint endpoint(address, rpc::transport::Tls{});
      rpc::transport::ClientCall c;
      ember::rpc::Envelope ping;
      ping.set_kind(ember::rpc::PING);
      c.request = wire::encode_plain(ping);
      c.set_timeout(3.0);
      grpc::Status s = rpc::transport::call_blocking(endpoint, &c);
      EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
      (void)!write(done_pipe[1], "x", 1);
      close(done_pipe[1]);
      return;
    }
    close(done_pipe[1]);
    rpc::RpcBackendOptions o = plain;
    o.tls_cert_chain = dir + "/cert.pem";
    o.tls_private_key = dir + "/key.pem";
    o.tls_root_certs = dir + "/cert.pem";
    o.tls_server_name = "ember-rpc";
    rpc::init_rpc(worker_name(rank), rank, 2, o);
    if (rank == 0) {
      char c;
      EXPECT_EQ(read(done_pipe[0], &c, 1), 1);
      at::Tensor t = at::Tensor(rpc::rpc_sync("worker1", "aten::add.Tensor",
                                              {at::ones({3}), at::ones({3})})
                                    .toTensorBase());
      EXPECT_EQ(t.sum().item<float>(), 6.0f);
    }
    rpc::shutdown();
    // Bad TLS options are named before anything starts.
    o.tls_private_key = dir + "/missing.pem";
    EXPECT_THAT(errorOf([&] { rpc::init_rpc("w", 0, 1, o); }),
                HasSubstr("init_rpc: cannot read RpcBackendOptions::tls_private_key '" +
                          dir + "/missing.pem'"));
    o.tls_private_key.clear();
    EXPECT_THAT(errorOf([&] { rpc::init_rpc("w", 0, 1, o); }),
                HasSubstr("init_rpc: TLS needs all of tls_cert_chain, tls_private_key "
                          "and tls_root_certs"));
  });
  close(done_pipe[0]);
  close(done_pipe[1]);
  EXPECT_THAT(codes, Each(0));
}

}  // namespace
