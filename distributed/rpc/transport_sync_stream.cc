// A blocking caller's end of a peer's stream (SyncStream): one request at a
// time, its reply read from the stream's own completion queue by the
// caller. See Note [One stream per peer] in transport.cc. Compiled without
// -fsanitize=thread under --config=tsan: See Note [TSan and gRPC] in
// transport.h.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"
#include "distributed/rpc/transport_streams.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

using namespace detail;  // NOLINT: the transport's own helpers

// Note [Polling before blocking]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A reply to a small call comes back within tens of microseconds, but a
// thread that sleeps in its completion queue (epoll_wait) until then pays a
// wake-up on top: on the 2-vCPU virtual machines of docs/benchmarks.md an
// idle vCPU halts, and waking it costs more than the round trip itself. A
// bare gRPC ping-pong on one stream (64 bytes, unix socket, client driving
// its own queue, callback server) took a median 46-69 us on an idle machine
// and 15 us when the client first polled its queue without blocking for up
// to 50 us (the same 15 us at 200 us: the replies come well inside 50).
// So a blocking caller polls for up to 50 us (EMBER_RPC_POLL_US, at most
// 10000; 0 turns it off) before it sleeps, when it is the process's only
// blocking caller waiting: where several wait, replies keep the cores busy
// anyway, and a poller would take a core from the callee (eight callers of
// a 3x3 add: 33-35k calls/s without polling, 21k/s with one thread
// polling). A call that takes longer costs at most that long of CPU per
// completion it waits for. Polling pays only where the caller's queue
// reads its own sockets: Note [Poll strategy] in transport.cc.
namespace {

// Threads in SyncStream::roundtrip now.
std::atomic<int> g_waiting{0};

struct Waiting {
  Waiting() { g_waiting.fetch_add(1, std::memory_order_relaxed); }
  ~Waiting() { g_waiting.fetch_sub(1, std::memory_order_relaxed); }
};

}  // namespace

SyncStream::SyncStream(grpc::GenericStub* stub) : call_(nullptr) {
  // The call's headers go out with its first message (no operation of
  // their own: the async stream's start and writes share one op set).
  context_.set_initial_metadata_corked(true);
  call_ = stub->PrepareCall(&context_, kStreamMethod, &cq_);
  call_->StartCall(nullptr);
}

SyncStream::~SyncStream() {
  if (!finished_) {
    context_.TryCancel();
    (void)finish_call();
  }
  cq_.Shutdown();
  void* t;
  bool ok;
  while (cq_.Next(&t, &ok)) {
  }
}

grpc::Status SyncStream::send_raw(const grpc::ByteBuffer& message,
                                  std::chrono::system_clock::time_point deadline) {
  call_->Write(message, tag(kWrite));
  pending_[kWrite] = true;
  start_read();
  want_ = 0;
  accept_any_ = true;
  while (!got_reply_) {
    if (!step(deadline, true)) return failure();
    if (timed_out_) return timeout();
  }
  return grpc::Status::OK;
}

grpc::Status SyncStream::roundtrip(ClientCall* call) {
  const Waiting waiting;  // See Note [Polling before blocking]
  const uint64_t id = next_call_id();
  const auto deadline = call->has_deadline_
                            ? std::chrono::system_clock::now() +
                                  std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                      call->deadline_ - std::chrono::steady_clock::now())
                            : std::chrono::system_clock::time_point::max();
  unsent_ = false;
  // The previous call's write, when it timed out before its end.
  while (pending_[kWrite]) {
    if (!step(deadline, call->has_deadline_)) {
      unsent_ = true;  // this request was not written
      return failure();
    }
    if (timed_out_) return timeout();
  }
  const grpc::ByteBuffer message = with_header(id, 0, &call->request, std::string());
  call_->Write(message, tag(kWrite));
  pending_[kWrite] = true;
  if (!pending_[kRead]) start_read();
  got_reply_ = false;
  want_ = id;
  while (!got_reply_ || pending_[kWrite]) {
    if (!step(deadline, call->has_deadline_)) return failure();
    if (timed_out_) return timeout();
  }
  uint64_t got = 0;
  uint32_t code = 0;
  (void)split_header(reply_, &got, &code, &call->response);
  reply_.Clear();
  if (code != 0) {
    const std::string text = body_text(call->response);
    call->response.Clear();
    return grpc::Status(static_cast<grpc::StatusCode>(code), text);
  }
  return grpc::Status::OK;
}

void SyncStream::completed(int op, bool ok) {
  pending_[op] = false;
  if (op == kWrite && !ok) unsent_ = true;
}

void SyncStream::start_read() {
  call_->Read(&read_, tag(kRead));
  pending_[kRead] = true;
}

grpc::CompletionQueue::NextStatus SyncStream::poll(void** t, bool* ok) {
  static const int64_t micros = env_int("EMBER_RPC_POLL_US", 50, 0, 10000);
  grpc::CompletionQueue::NextStatus r = grpc::CompletionQueue::TIMEOUT;
  if (micros == 0 || g_waiting.load(std::memory_order_relaxed) > 1) return r;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  do {
    // A past deadline: takes what is ready, without sleeping.
    r = cq_.AsyncNext(t, ok, gpr_inf_past(GPR_CLOCK_MONOTONIC));
  } while (r == grpc::CompletionQueue::TIMEOUT && std::chrono::steady_clock::now() < until);
  return r;
}

bool SyncStream::step(std::chrono::system_clock::time_point deadline, bool bounded) {
  timed_out_ = false;
  void* t = nullptr;
  bool ok = false;
  grpc::CompletionQueue::NextStatus r = poll(&t, &ok);
  if (r == grpc::CompletionQueue::TIMEOUT) {
    if (bounded) {
      r = cq_.AsyncNext(&t, &ok, deadline);
    } else {
      r = cq_.Next(&t, &ok) ? grpc::CompletionQueue::GOT_EVENT : grpc::CompletionQueue::SHUTDOWN;
    }
  }
  if (r == grpc::CompletionQueue::TIMEOUT) {
    timed_out_ = true;
    return true;
  }
  if (r != grpc::CompletionQueue::GOT_EVENT) return false;
  return handle(t, ok);
}

bool SyncStream::handle(void* t, bool ok) {
  const int op = static_cast<int>(reinterpret_cast<intptr_t>(t) - 1);
  if (op < 0 || op >= kOps) return false;
  completed(op, ok);
  if (!ok) return false;
  if (op == kRead) {
    uint64_t id = 0;
    uint32_t code = 0;
    grpc::ByteBuffer body;
    if (!split_header(read_, &id, &code, &body)) {
      bad_reply_ = true;
      return false;
    }
    if (id == want_ || accept_any_) {
      reply_ = std::move(read_);
      got_reply_ = true;
    }
    read_.Clear();
    start_read();  // the next call's reply, or this one's after a late one
  }
  return true;
}

bool SyncStream::service() {
  if (finished_) return false;
  want_ = 0;  // no call waits: a late reply is dropped
  for (;;) {
    void* t = nullptr;
    bool ok = false;
    const auto r = cq_.AsyncNext(&t, &ok, gpr_inf_past(GPR_CLOCK_MONOTONIC));
    if (r == grpc::CompletionQueue::TIMEOUT) return true;
    // Ended: the owner destroys it outside its pool's lock, which ends the
    // call (finish_call may wait for gRPC).
    if (r != grpc::CompletionQueue::GOT_EVENT || !handle(t, ok)) return false;
  }
}

grpc::Status SyncStream::timeout() {
  return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded");
}

grpc::Status SyncStream::failure() {
  if (bad_reply_) context_.TryCancel();  // the call itself is still up
  grpc::Status status = finish_call();
  if (bad_reply_) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "rpc: bad message: not an RPC stream message");
  }
  if (status.ok()) {
    // The server finishes a stream OK only once every request it took
    // from it is answered: the request without a reply never reached it,
    // and may go again on a new stream.
    unsent_ = true;
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "the peer closed the RPC stream (its server shut down)");
  }
  return status;
}

grpc::Status SyncStream::finish_call() {
  finished_ = true;
  const auto limit = std::chrono::system_clock::now() + std::chrono::seconds(5);
  bool cancelled = false;
  const auto drain = [&] {
    for (;;) {
      bool any = false;
      for (bool p : pending_) any = any || p;
      if (!any) return;
      void* t = nullptr;
      bool ok = false;
      const auto r = cq_.AsyncNext(
          &t, &ok, cancelled ? std::chrono::system_clock::time_point::max() : limit);
      if (r == grpc::CompletionQueue::SHUTDOWN) return;
      if (r == grpc::CompletionQueue::TIMEOUT) {
        context_.TryCancel();
        cancelled = true;
        continue;
      }
      const int op = static_cast<int>(reinterpret_cast<intptr_t>(t) - 1);
      if (op >= 0 && op < kOps) completed(op, ok);
    }
  };
  drain();
  grpc::Status status;
  call_->Finish(&status, tag(kFinish));
  pending_[kFinish] = true;
  drain();
  return status;
}

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
