// rpc_bench: Ember RPC between two processes on loopback, against raw gRPC
// in the same run.
//
//   ./bazelw run //tools/bench:rpc_bench [-- --seconds=2]
//
// Rank 1 (a forked child) serves; rank 0 measures:
//   - raw gRPC: a synchronous unary echo of 64 bytes (BlockingUnaryCall on
//     a generic callback service), over TCP and over a unix socket, and of
//     4 MiB over the unix socket (bytes sent per second);
//   - rpc_sync of aten::add.Tensor on two 3x3 floats: the round trip;
//   - rpc_sync of aten::add.Tensor on two 4 MiB floats: bytes sent per
//     second (8 MiB of arguments per call; 4 MiB come back);
//   - 8 threads calling rpc_sync (3x3 add) at once: calls per second;
//   - gRPC's bound for the 4 MiB add: the 4 MiB echo's bytes per second
//     applied to the add's 12 MiB (8 MiB sent, 4 MiB back);
//   - the 4 MiB add again with EMBER_RPC_SHARED_MEMORY=0 (the bench runs
//     itself with --only-bulk), i.e. through gRPC instead of read from the
//     sender's memory (Note [Shared tensors] in distributed/rpc/peer_memory.h).
// Printed with the anchors of DESIGN.md (PyTorch 1.13 RPC: 414 us and
// 2.5 GB/s; gRPC's own sync echo: 78-94 us). The raw echoes' server (in the
// child) initializes gRPC before Ember does and keeps gRPC's default
// engine; their client runs in rank 0, under the engine Ember picks (Note
// [Poll strategy] in distributed/rpc/transport.cc). GRPC_POLL_STRATEGY=epoll1
// runs everything on gRPC's default, as before 2026-12-06. A plain binary,
// not Google Benchmark: the measurement needs a second process and a
// rendezvous.
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/client_unary_call.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "distributed/rpc/rpc.h"

namespace rpc = torch::distributed::rpc;
using Clock = std::chrono::steady_clock;

namespace {

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// Echoes the one message of each call.
class EchoService final : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    // "/bench.Echo/Stream": one long call that echoes each message it reads
    // (a ping-pong on one HTTP/2 stream, no per-call setup).
    class StreamReactor final : public grpc::ServerGenericBidiReactor {
     public:
      StreamReactor() { StartRead(&buf_); }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        StartWrite(&buf_);
      }
      void OnWriteDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        StartRead(&buf_);
      }
      void OnDone() override { delete this; }

     private:
      grpc::ByteBuffer buf_;
    };
    if (context->method() == "/bench.Echo/Stream") return new StreamReactor;
    class Reactor final : public grpc::ServerGenericBidiReactor {
     public:
      Reactor() { StartRead(&buf_); }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        StartWriteAndFinish(&buf_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }

     private:
      grpc::ByteBuffer buf_;
    };
    return new Reactor;
  }
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Mean microseconds per call of f over `seconds` (after a warm-up).
template <class F>
double time_per_call_us(double seconds, F&& f) {
  for (int i = 0; i < 50; ++i) f();
  int64_t n = 0;
  auto start = Clock::now();
  while (seconds_since(start) < seconds) {
    for (int i = 0; i < 20; ++i) f();
    n += 20;
  }
  return seconds_since(start) * 1e6 / static_cast<double>(n);
}

double raw_echo_us(const std::string& target, double seconds,
                   size_t bytes = 64) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(-1);
  auto channel = grpc::CreateCustomChannel(
      target, grpc::InsecureChannelCredentials(), args);
  std::string payload(bytes, 'x');
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1);
  grpc::internal::RpcMethod method("/bench.Echo/Echo",
                                   grpc::internal::RpcMethod::NORMAL_RPC);
  return time_per_call_us(seconds, [&] {
    grpc::ClientContext ctx;
    grpc::ByteBuffer response;
    grpc::Status s = grpc::internal::BlockingUnaryCall(
        channel.get(), method, &ctx, request, &response);
    if (!s.ok()) {
      std::fprintf(stderr, "raw echo failed: %s\n", s.error_message().c_str());
      std::exit(1);
    }
  });
}

// The round trip of a 64-byte message on one open bidirectional stream
// (GenericStub on a completion queue the calling thread drives): what a
// transport that keeps one stream per peer would pay per call, against the
// unary call's stream setup and teardown each time.
double stream_echo_us(const std::string& target, double seconds) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext ctx;
  const auto next = [&cq](const char* what) {
    void* tag = nullptr;
    bool ok = false;
    if (!cq.Next(&tag, &ok) || !ok) {
      std::fprintf(stderr, "stream echo: %s failed\n", what);
      std::exit(1);
    }
  };
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&ctx, "/bench.Echo/Stream", &cq);
  call->StartCall(reinterpret_cast<void*>(1));
  next("start");
  std::string payload(64, 'x');
  grpc::Slice slice(payload);
  const grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  const double us = time_per_call_us(seconds, [&] {
    call->Write(request, reinterpret_cast<void*>(2));
    next("write");
    call->Read(&response, reinterpret_cast<void*>(3));
    next("read");
  });
  call->WritesDone(reinterpret_cast<void*>(4));
  next("writes done");
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  next("finish");
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2.0;
  bool only_latency = false;  // just the 3x3 rpc_sync (for profiling)
  bool only_bulk = false;     // just the 2 x 4 MiB rpc_sync (for profiling)
  int64_t bulk_bytes = 4 << 20;  // --bulk-bytes=N: that add's tensor size
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--seconds=", 0) == 0) seconds = std::atof(a.c_str() + 10);
    if (a == "--only-latency") only_latency = true;
    if (a == "--only-bulk") only_bulk = true;
    if (a.rfind("--bulk-bytes=", 0) == 0) bulk_bytes = std::atoll(a.c_str() + 13);
  }
  rpc::RpcBackendOptions options;
  options.init_method = "tcp://127.0.0.1:" + std::to_string(free_port());
  const int echo_port = free_port();
  const std::string echo_unix =
      "unix-abstract:ember-rpc-bench-echo-" + std::to_string(getpid());
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    EchoService echo;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:" + std::to_string(echo_port),
                             grpc::InsecureServerCredentials());
    builder.AddListeningPort(echo_unix, grpc::InsecureServerCredentials());
    builder.RegisterCallbackGenericService(&echo);
    builder.SetMaxReceiveMessageSize(-1);
    auto server = builder.BuildAndStart();
    rpc::init_rpc("worker1", 1, 2, options);
    rpc::shutdown();  // waits at the barrier until rank 0 is done
    server->Shutdown();
    _exit(0);
  }
  rpc::init_rpc("worker0", 0, 2, options);
  // As in a program that makes both kinds of call: the asynchronous stream
  // to the peer is open while rpc_sync is timed (Note [Poll strategy] in
  // distributed/rpc/transport.cc).
  rpc::rpc_async("worker1", "aten::add.Tensor", {at::ones({1}), at::ones({1})})->wait();

  if (only_latency || only_bulk) {
    at::Tensor a = at::ones({only_bulk ? std::max<int64_t>(bulk_bytes / 4, 1) : 9});
    const double us = time_per_call_us(seconds, [&] {
      rpc::rpc_sync("worker1", "aten::add.Tensor", {a, a});
    });
    rpc::shutdown();
    waitpid(child, nullptr, 0);
    const std::string what =
        only_bulk ? "2 x " + std::to_string(bulk_bytes) + " B" : std::string("3x3");
    std::printf("rpc_sync add %s round trip %.1f us\n", what.c_str(), us);
    return 0;
  }
  const double echo_tcp = raw_echo_us("127.0.0.1:" + std::to_string(echo_port), seconds);
  const double echo_unix_us = raw_echo_us(echo_unix, seconds);
  const double stream_tcp_us = stream_echo_us("127.0.0.1:" + std::to_string(echo_port), seconds);
  const double stream_unix_us = stream_echo_us(echo_unix, seconds);
  // gRPC's own ceiling for megabyte messages (default channel arguments).
  const double echo_big_us = raw_echo_us(echo_unix, seconds, 4 << 20);
  const double echo_big_gbps = (4 << 20) / (echo_big_us * 1e-6) / 1e9;

  at::Tensor a = at::ones({3, 3});
  at::Tensor b = at::ones({3, 3});
  const double add_us = time_per_call_us(seconds, [&] {
    rpc::rpc_sync("worker1", "aten::add.Tensor", {a, b});
  });

  const int64_t big_numel = (4 << 20) / 4;  // 4 MiB of floats
  at::Tensor x = at::ones({big_numel});
  at::Tensor y = at::ones({big_numel});
  const double big_us = time_per_call_us(seconds, [&] {
    rpc::rpc_sync("worker1", "aten::add.Tensor", {x, y});
  });
  const double sent_gbps = 2.0 * (4 << 20) / (big_us * 1e-6) / 1e9;

  constexpr int kCallers = 8;
  std::atomic<int64_t> calls{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> callers;
  auto start = Clock::now();
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&] {
      int64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        rpc::rpc_sync("worker1", "aten::add.Tensor", {a, b});
        ++n;
      }
      calls.fetch_add(n);
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : callers) t.join();
  const double calls_per_s = static_cast<double>(calls.load()) / seconds_since(start);

  rpc::shutdown();
  int status = 0;
  waitpid(child, &status, 0);

  // The same add through gRPC, from a second run of this binary.
  double grpc_big_us = 0;
  if (std::getenv("EMBER_RPC_SHARED_MEMORY") == nullptr) {
    const std::string cmd = "EMBER_RPC_SHARED_MEMORY=0 /proc/" +
                            std::to_string(getpid()) + "/exe --only-bulk --seconds=" +
                            std::to_string(seconds);
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char line[256];
      while (std::fgets(line, sizeof(line), p) != nullptr) {
        std::sscanf(line, "rpc_sync add 2 x 4194304 B round trip %lf us", &grpc_big_us);
      }
      pclose(p);
    }
  }

  // Bytes through the connection per call: the echo moves 4 MiB each way;
  // the add sends 8 MiB of arguments and gets 4 MiB back. gRPC's bound for
  // the add: its 4 MiB echo's bytes-per-second over the add's 12 MiB.
  const double echo_big_moved = 2.0 * (4 << 20) / (echo_big_us * 1e-6) / 1e9;
  const double add_big_moved = 3.0 * (4 << 20) / (big_us * 1e-6) / 1e9;
  const double grpc_bound_sent = echo_big_moved * 2.0 / 3.0;

  std::printf("%-52s %12s %22s\n", "workload (2 processes, loopback)", "Ember",
              "anchor -> ratio");
  std::printf("%-52s %9.1f us %22s\n", "raw gRPC sync echo 64 B, TCP (this run)",
              echo_tcp, "78-94 us (notes)");
  std::printf("%-52s %9.1f us\n", "raw gRPC sync echo 64 B, unix socket (this run)",
              echo_unix_us);
  std::printf("%-52s %9.1f us\n", "gRPC bidi stream ping-pong 64 B, TCP (this run)",
              stream_tcp_us);
  std::printf("%-52s %9.1f us\n", "gRPC bidi stream ping-pong 64 B, unix (this run)",
              stream_unix_us);
  std::printf("%-52s %9.2f GB/s 0.85 GB/s (notes) (%.0f us per call)\n",
              "raw gRPC sync echo 4 MiB, unix socket (this run)", echo_big_gbps,
              echo_big_us);
  std::printf("%-52s %9.1f us   414 us -> %.2fx PyTorch; %.2fx raw echo (unix, "
              "as Ember's local workers), %.2fx (TCP)\n",
              "rpc_sync add 3x3 round trip", add_us, add_us / 414.0,
              add_us / echo_unix_us, add_us / echo_tcp);
  std::printf("%-52s %9.2f GB/s 2.5 GB/s -> %.2fx PyTorch (%.0f us per call)\n",
              "rpc_sync add 2 x 4 MiB, argument bytes sent", sent_gbps,
              sent_gbps / 2.5, big_us);
  if (grpc_big_us > 0) {
    const double grpc_gbps = 2.0 * (4 << 20) / (grpc_big_us * 1e-6) / 1e9;
    std::printf("%-52s %9.2f GB/s -> %.2fx PyTorch; shared %.2fx this (%.0f us per call)\n",
                "  the same through gRPC (EMBER_RPC_SHARED_MEMORY=0)", grpc_gbps,
                grpc_gbps / 2.5, sent_gbps / grpc_gbps, grpc_big_us);
  }
  std::printf("%-52s %9.2f GB/s -> %.2fx PyTorch's 2.5 GB/s at most\n",
              "  gRPC's bound for it (4 MiB echo rate, this run)", grpc_bound_sent,
              grpc_bound_sent / 2.5);
  std::printf("%-52s %9.2f GB/s vs %.2f GB/s raw echo -> %.2fx\n",
              "  bytes through the connection (12 MiB per call)", add_big_moved,
              echo_big_moved, add_big_moved / echo_big_moved);
  std::printf("%-52s %9.0f /s\n", "8 threads calling rpc_sync add 3x3", calls_per_s);
  return 0;
}
