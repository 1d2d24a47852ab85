// The RPC transport on its own (distributed/rpc/transport.h): calls on the
// peer's stream answered out of order, a stream whose connection closed
// while it was idle (See Note [One stream per peer] in transport.cc), idle
// blocking streams under gRPC's poll engine and close_blocking (Note [Idle
// blocking streams] in transport_client.cc).
#include <gtest/gtest.h>

#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "distributed/rpc/transport.h"

namespace transport = torch::distributed::rpc::transport;

namespace {

std::string text(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  std::string s;
  if (!b.Dump(&slices).ok()) return s;
  for (const auto& sl : slices) s.append(reinterpret_cast<const char*>(sl.begin()), sl.size());
  return s;
}

grpc::ByteBuffer bytes(const std::string& s) {
  grpc::Slice slice(s);
  return grpc::ByteBuffer(&slice, 1);
}

// Hands this thread's writes so far to a gRPC thread, as ThreadSanitizer
// sees it: the writer calls publish() before the call that reaches gRPC,
// the callback or handler calls receive() before it reads. gRPC's threads
// start before the objects their callbacks use, and gRPC hands work to them
// through atomics TSan does not see (See Note [TSan and gRPC] in
// transport.h); a mutex constructed after those threads cannot order its
// own first lock, so the handoff goes through one that exists before any
// thread (the agent orders its calls the same way, through its own mutex).
std::mutex g_handoff;
void publish() { std::lock_guard<std::mutex> g(g_handoff); }
void receive() { std::lock_guard<std::mutex> g(g_handoff); }

// Echoes each request; with park = 8 it holds requests until 8 have come
// and answers them in a scrambled order.
struct Echo {
  std::mutex mutex;
  size_t park = 0;
  std::vector<std::pair<std::string, transport::ServerCall>> parked;

  static void handle(void* self, const grpc::ByteBuffer& request, transport::ServerCall call) {
    receive();
    auto* e = static_cast<Echo*>(self);
    std::vector<std::pair<std::string, transport::ServerCall>> ready;
    {
      std::lock_guard<std::mutex> g(e->mutex);
      if (e->park == 0) {
        ready.emplace_back(text(request), call);
      } else {
        e->parked.emplace_back(text(request), call);
        if (e->parked.size() == e->park) {
          for (int i : {3, 7, 0, 5, 1, 6, 2, 4}) ready.push_back(e->parked[i]);
          e->parked.clear();
        }
      }
    }
    for (auto& r : ready) transport::finish(r.second, bytes("re:" + r.first));
  }
};

std::unique_ptr<transport::Server> serve(Echo* echo, const std::string& address, int* port) {
  return transport::Server::start({address}, transport::Tls{}, &Echo::handle, echo, port);
}

grpc::Status call(transport::Endpoint& to, const std::string& request, std::string* reply) {
  transport::ClientCall c;
  c.request = bytes(request);
  c.set_timeout(10.0);
  grpc::Status s = transport::call_blocking(to, &c);
  *reply = text(c.response);
  return s;
}

TEST(RpcTransport, AsyncCallsOnTheStreamGetTheirOwnRepliesInAnyOrder) {
  Echo echo;
  echo.park = 8;
  publish();
  int port = 0;
  auto server = serve(&echo, "127.0.0.1:0", &port);
  ASSERT_NE(server, nullptr);
  transport::Endpoint to("127.0.0.1:" + std::to_string(port), transport::Tls{});
  struct Done {
    std::mutex mutex;
    std::condition_variable cv;
    int count = 0;
    std::vector<std::pair<std::string, grpc::Status>> got{8};
  } done;
  std::vector<std::unique_ptr<transport::ClientCall>> calls;
  for (int i = 0; i < 8; ++i) {
    calls.push_back(std::make_unique<transport::ClientCall>());
    calls.back()->request = bytes("call " + std::to_string(i));
    calls.back()->set_timeout(10.0);
  }
  publish();
  for (int i = 0; i < 8; ++i) {
    transport::call_async(
        to, calls[i].get(),
        [](void* a, void* b, grpc::Status status) {
          receive();
          auto* d = static_cast<Done*>(a);
          auto* c = static_cast<transport::ClientCall*>(b);
          std::lock_guard<std::mutex> g(d->mutex);
          const std::string request = text(c->request);
          d->got[std::stoi(request.substr(5))] = {text(c->response), status};
          ++d->count;
          d->cv.notify_all();
        },
        &done, calls[i].get());
  }
  {
    std::unique_lock<std::mutex> l(done.mutex);
    ASSERT_TRUE(done.cv.wait_for(l, std::chrono::seconds(20), [&] { return done.count == 8; }));
  }
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(done.got[i].second.ok()) << done.got[i].second.error_message();
    EXPECT_EQ(done.got[i].first, "re:call " + std::to_string(i));
  }
  server->shutdown(1.0);
}

// A blocking call leaves its stream idle in the pool; the server shuts
// down with `grace_s` (which finishes that stream) and a new server comes up
// on the same address; the next call must reach it, on a new stream.
void expect_the_next_call_reaches_a_restarted_server(double grace_s) {
  Echo first;
  publish();
  int port = 0;
  auto server = serve(&first, "127.0.0.1:0", &port);
  ASSERT_NE(server, nullptr);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  transport::Endpoint to(address, transport::Tls{});
  std::string reply;
  ASSERT_TRUE(call(to, "one", &reply).ok());
  EXPECT_EQ(reply, "re:one");
  server->shutdown(grace_s);
  server.reset();
  Echo second;
  publish();
  int again = 0;
  auto restarted = serve(&second, address, &again);
  ASSERT_NE(restarted, nullptr);
  ASSERT_EQ(again, port);
  const grpc::Status s = call(to, "two", &reply);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(reply, "re:two");
  restarted->shutdown(1.0);
}

// The blocking caller's pooled stream dies with its server; a new server on
// the same address serves the next call, sent again on a new stream.
TEST(RpcTransport, ABlockingCallOnAStreamThatDiedIdleGoesOnANewOne) {
  expect_the_next_call_reaches_a_restarted_server(1.0);
}

// A server that ended the stream OK (its shutdown: every request it took
// is answered) did not take the request written after: it goes again on a
// new stream. Forced (0.1 s grace), the shutdown does not wait for the idle
// stream to be read; transport_between_sweeps_test runs this with a sweep
// too slow to read it first (Note [Idle blocking streams]).
TEST(RpcTransport, ARequestAfterTheServerEndedTheStreamOKGoesOnANewOne) {
  expect_the_next_call_reaches_a_restarted_server(0.1);
}

// Under gRPC's poll engine an idle connection is read only when someone
// polls it (Note [Idle blocking streams] in transport_client.cc): the sweep
// does, so a server's graceful shutdown sees the idle stream end at once
// instead of waiting out its grace period.
TEST(RpcTransport, AServerShutdownDoesNotWaitForAnIdleBlockingStream) {
  Echo echo;
  publish();
  int port = 0;
  auto server = serve(&echo, "127.0.0.1:0", &port);
  ASSERT_NE(server, nullptr);
  transport::Endpoint to("127.0.0.1:" + std::to_string(port), transport::Tls{});
  // See Note [Poll strategy] in transport.cc (this test sets no engine).
  ASSERT_NE(std::getenv("GRPC_POLL_STRATEGY"), nullptr);
  EXPECT_STREQ(std::getenv("GRPC_POLL_STRATEGY"), "poll");
  std::string reply;
  ASSERT_TRUE(call(to, "one", &reply).ok());
  EXPECT_EQ(reply, "re:one");
  const auto start = std::chrono::steady_clock::now();
  server->shutdown(8.0);  // the stream of the call is idle in `to`'s pool
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(RpcTransport, BlockingCallsAfterCloseBlockingFailWithAClearError) {
  Echo echo;
  publish();
  int port = 0;
  auto server = serve(&echo, "127.0.0.1:0", &port);
  ASSERT_NE(server, nullptr);
  transport::Endpoint to("127.0.0.1:" + std::to_string(port), transport::Tls{});
  std::string reply;
  ASSERT_TRUE(call(to, "one", &reply).ok());
  to.close_blocking();
  const grpc::Status s = call(to, "two", &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(s.error_message(), "rpc: this worker's RPC client is shut down");
  const auto start = std::chrono::steady_clock::now();
  server->shutdown(8.0);  // the closed connection holds nothing up
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

}  // namespace
