// The transport's shared pieces: the stream header, gRPC's setup, and the
// design of the stream per peer. The server is in transport_server.cc, the
// client in transport_client.cc and its two kinds of stream in
// transport_callback_stream.cc and transport_sync_stream.cc
// (transport_streams.h). Compiled without -fsanitize=thread under
// --config=tsan: See Note [TSan and gRPC] in transport.h.
#include <grpc/grpc.h>

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {
namespace detail {

// Note [One stream per peer]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A unary gRPC call opens and closes an HTTP/2 stream, with its headers,
// trailers and a call object on both ends, for every request. A worker
// instead keeps one long RpcAgent.Stream call to each peer (opened on the
// first request, reopened on the next request after it breaks) and sends
// its small requests on it; the peer's server answers each on the same
// stream. Every message there is
//
//   [u64 LE call id][u32 LE status code][u32 0][body]
//
// where a request has status 0 and its body is the frame; a reply names the
// request's id, and its body is the reply frame (status 0) or the error
// message (a grpc::StatusCode). Replies come in any order. Requests larger
// than kStreamMaxBytes take a unary call of their own, so a large tensor
// does not hold up the small calls queued behind it on the stream (HTTP/2
// interleaves streams, not the messages of one), and the rendezvous (which
// waits for the server to come up: wait_for_ready) is unary too.
//
// What gRPC did per call, the transport now does per stream message:
// - Deadlines: a blocking caller waits for its reply until its deadline; an
//   asynchronous call's deadline is kept by the timer thread (Timers).
// - Cancel: the timer thread fails the call at once (never on the
//   cancelling thread, which may hold the agent's mutex).
// - A broken stream (the peer died, the connection closed, the server shut
//   down) fails every call waiting on it with the stream's status, as a
//   unary call to that peer would have failed; the next request opens a
//   new stream, which fails fast if the peer is gone.
// Exactly one of the reply, the deadline, a cancel or the break finishes a
// call: whichever takes its id out of the stream's table.
//
// Two kinds of client end. A blocking caller (rpc_sync, to_here, the
// agent's own waits) takes a stream of its own from the Endpoint's pool
// (SyncStream: one per thread calling at once; all on a second connection
// to the peer, Note [Poll strategy]) and reads its reply from
// that stream's completion queue itself: no gRPC callback thread between
// the reply and the caller (a ping-pong on it cost ~43 us where a callback
// reactor waking the caller cost ~81, on the 2-vCPU machine of
// docs/benchmarks.md). A late reply to a call that timed out comes on the
// same stream and is dropped by the next call there, by its id. An idle
// pooled stream whose connection closed fails its next write before the
// request leaves, which then goes once more on a new stream. Asynchronous
// calls share one callback stream per peer (ClientStream).
//
// The server's end (ServerStream) starts its next read after the handler
// returns, so that a reply the handler writes at once goes out first (~10
// us less per call than reading first); handlers that run on gRPC's thread
// are short (the agent hands long ones to its pool). Writes on either end go
// through a queue (gRPC allows one write in flight per stream). gRPC's
// operations are never started under the transport's own mutexes: a
// callback may run inside them.

Mutex::Mutex() { pthread_mutex_init(&mutex_, nullptr); }
Mutex::~Mutex() { pthread_mutex_destroy(&mutex_); }
void Mutex::lock() { pthread_mutex_lock(&mutex_); }
void Mutex::unlock() { pthread_mutex_unlock(&mutex_); }

CondVar::CondVar() {
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&cond_, &attr);
  pthread_condattr_destroy(&attr);
}
CondVar::~CondVar() { pthread_cond_destroy(&cond_); }

void CondVar::wait(std::unique_lock<Mutex>& lock) {
  pthread_cond_wait(&cond_, lock.mutex()->native());
}

void CondVar::wait_until(std::unique_lock<Mutex>& lock,
                         std::chrono::steady_clock::time_point when) {
  // steady_clock is CLOCK_MONOTONIC in libstdc++.
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch());
  timespec ts;
  ts.tv_sec = static_cast<time_t>(ns.count() / 1000000000);
  ts.tv_nsec = static_cast<long>(ns.count() % 1000000000);
  if (ns.count() < 0) ts = timespec{0, 0};
  pthread_cond_timedwait(&cond_, lock.mutex()->native(), &ts);
}

void CondVar::notify_one() { pthread_cond_signal(&cond_); }

std::chrono::system_clock::time_point deadline_after(double seconds) {
  return std::chrono::system_clock::now() +
         std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

// Note [gRPC stays initialized]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The last grpc_shutdown() of a process (run by ~grpc::Server once nothing
// else holds gRPC) joins gRPC's executor threads, and one parked in
// epoll_wait is not woken: the join waited out its ~10 s poll timeout (seen
// as a 10 s rpc::shutdown() of a parameter-server trainer, one run in four).
// One grpc_init() taken on first use and never released keeps that teardown
// out of shutdown(); the process's exit reclaims gRPC's threads and memory,
// and a later init_rpc in the same process reuses them.
//
// Note [Poll strategy]
// ~~~~~~~~~~~~~~~~~~~~
// Before that first grpc_init, the transport picks gRPC's "poll" engine
// unless GRPC_POLL_STRATEGY says otherwise (setenv without overwrite: the
// variable is gRPC's documented switch, read at its initialization). The
// default, epoll1, has one epoll set per process and one thread at a time
// polling it, usually a callback thread of the worker's own server parked
// in epoll_wait; a blocking caller polling its own completion queue (Note
// [Polling before blocking] in transport_sync_stream.cc) then waits for
// that thread to wake and hand the reply over. Under "poll" each
// completion queue polls the sockets of its own calls, so the caller reads
// its reply itself, provided no callback call shares the connection (then
// gRPC's callback threads poll its socket, and the caller waits for them
// again): blocking callers get a connection of their own (Endpoint). A
// 3x3 rpc_sync took 38-42 us where epoll1 took 84-87 (the same runs,
// docs/benchmarks.md). The price: a socket nobody polls is not read (Note
// [Idle blocking streams] in transport_client.cc). A program that
// initialized gRPC before its first RPC keeps the engine it got.
void keep_grpc_initialized() {
  static const bool kept = (setenv("GRPC_POLL_STRATEGY", "poll", /*overwrite=*/0), grpc_init(),
                            true);
  (void)kept;
}

int64_t env_int(const char* name, int64_t fallback, int64_t lo, int64_t hi) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0') return fallback;
  return std::min<int64_t>(std::max<int64_t>(n, lo), hi);
}

grpc::ByteBuffer with_header(uint64_t id, uint32_t code, const grpc::ByteBuffer* body,
                             const std::string& message) {
  uint8_t h[kHeaderBytes] = {};
  for (int i = 0; i < 8; ++i) h[i] = static_cast<uint8_t>(id >> (8 * i));
  for (int i = 0; i < 4; ++i) h[8 + i] = static_cast<uint8_t>(code >> (8 * i));
  std::vector<grpc::Slice> slices;
  slices.emplace_back(h, kHeaderBytes);
  if (body != nullptr) {
    std::vector<grpc::Slice> rest;
    (void)body->Dump(&rest);
    for (auto& r : rest) slices.push_back(std::move(r));
  } else if (!message.empty()) {
    slices.emplace_back(message);
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

bool split_header(const grpc::ByteBuffer& message, uint64_t* id, uint32_t* code,
                  grpc::ByteBuffer* body) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return false;
  uint8_t h[kHeaderBytes];
  size_t got = 0;
  size_t i = 0;
  size_t offset = 0;  // into slices[i]
  while (got < kHeaderBytes && i < slices.size()) {
    const size_t n = std::min(kHeaderBytes - got, slices[i].size() - offset);
    std::memcpy(h + got, slices[i].begin() + offset, n);
    got += n;
    offset += n;
    if (offset == slices[i].size()) {
      ++i;
      offset = 0;
    }
  }
  if (got < kHeaderBytes) return false;
  *id = 0;
  *code = 0;
  uint32_t reserved = 0;
  for (int k = 0; k < 8; ++k) *id |= static_cast<uint64_t>(h[k]) << (8 * k);
  for (int k = 0; k < 4; ++k) *code |= static_cast<uint32_t>(h[8 + k]) << (8 * k);
  for (int k = 0; k < 4; ++k) reserved |= static_cast<uint32_t>(h[12 + k]) << (8 * k);
  if (reserved != 0) return false;
  std::vector<grpc::Slice> rest;
  for (; i < slices.size(); ++i) {
    if (offset == 0) {
      rest.push_back(std::move(slices[i]));
    } else {
      rest.push_back(slices[i].sub(offset, slices[i].size()));
      offset = 0;
    }
  }
  *body = grpc::ByteBuffer(rest.data(), rest.size());
  return true;
}

std::string body_text(const grpc::ByteBuffer& body) {
  std::vector<grpc::Slice> slices;
  std::string text;
  if (!body.Dump(&slices).ok()) return text;
  for (auto& sl : slices) {
    text.append(reinterpret_cast<const char*>(sl.begin()), sl.size());
  }
  return text;
}

}  // namespace detail
}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
