// The asynchronous callers' end of a peer's stream (ClientStream, on
// gRPC's callback API) and the timer thread that fails its calls at their
// deadline or cancel (Timers). See Note [One stream per peer] in
// transport.cc. Compiled without -fsanitize=thread under --config=tsan: See
// Note [TSan and gRPC] in transport.h.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"
#include "distributed/rpc/transport_streams.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

using namespace detail;  // NOLINT: the transport's own helpers

uint64_t next_call_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// ---- the timer thread ----------------------------------------------------------------

Timers& timers() {
  static Timers* const kTimers = new Timers;
  return *kTimers;
}

void Timers::add(Key key, std::weak_ptr<ClientStream> stream, grpc::StatusCode code) {
  std::lock_guard<Mutex> g(mutex_);
  if (!started_) {
    started_ = true;
    std::thread([this] { run(); }).detach();
  }
  const bool first = entries_.empty() || key < entries_.begin()->first;
  entries_.emplace(key, Entry{std::move(stream), code});
  if (first) cv_.notify_one();
}

void Timers::cancel(uint64_t id, std::weak_ptr<ClientStream> stream) {
  add({std::chrono::steady_clock::time_point{}, id}, std::move(stream),
      grpc::StatusCode::CANCELLED);
}

void Timers::remove(Key key) {
  std::lock_guard<Mutex> g(mutex_);
  entries_.erase(key);
}

void Timers::run() {
  std::unique_lock<Mutex> l(mutex_);
  for (;;) {
    if (entries_.empty()) {
      cv_.wait(l);
      continue;
    }
    auto first = entries_.begin();
    if (first->first.first > std::chrono::steady_clock::now()) {
      const auto when = first->first.first;  // the entry may go meanwhile
      cv_.wait_until(l, when);
      continue;
    }
    const uint64_t id = first->first.second;
    Entry entry = std::move(first->second);
    entries_.erase(first);
    l.unlock();
    if (auto stream = entry.stream.lock()) {
      if (ClientCall* call = stream->take(id)) {
        call->finish(grpc::Status(entry.code, entry.code == grpc::StatusCode::CANCELLED
                                                  ? "Cancelled"
                                                  : "Deadline Exceeded"));
      }
    }
    l.lock();
  }
}

// ---- the stream ---------------------------------------------------------------------

std::shared_ptr<ClientStream> ClientStream::open(grpc::ChannelInterface* channel,
                                                 const grpc::internal::RpcMethod& method) {
  std::shared_ptr<ClientStream> s(new ClientStream);
  s->self_ = s;
  grpc::internal::ClientCallbackReaderWriterFactory<grpc::ByteBuffer, grpc::ByteBuffer>::Create(
      channel, method, &s->context_, s.get());
  // Writes start outside the reactions: the hold keeps the call until
  // the last of them is done (removed once the stream broke).
  s->AddHold();
  s->StartRead(&s->read_);
  s->StartCall();
  return s;
}

bool ClientStream::broken() {
  std::lock_guard<Mutex> g(mutex_);
  return broken_;
}

bool ClientStream::send(ClientCall* call) {
  const uint64_t id = next_call_id();
  grpc::ByteBuffer* first = nullptr;
  {
    std::lock_guard<Mutex> g(mutex_);
    if (broken_) return false;
    bool cancelled;
    {
      std::lock_guard<Mutex> c(call->mutex_);
      call->stream_ = self_;
      call->id_ = id;
      cancelled = call->cancelled_;
    }
    pending_.emplace(id, call);
    // A cancel that came before: applied now, while the call is ours (once
    // the write starts, its reply may finish and free it).
    if (cancelled) timers().cancel(id, self_);
    if (call->has_deadline_) {
      // Before the write: the reply cannot finish the call first.
      call->has_timer_ = true;
      timers().add({call->deadline_, id}, self_, grpc::StatusCode::DEADLINE_EXCEEDED);
    }
    writes_.push_back(with_header(id, 0, &call->request, std::string()));
    if (!writing_) {
      writing_ = true;
      first = &writes_.front();
    }
  }
  if (first != nullptr) StartWrite(first);
  return true;
}

ClientCall* ClientStream::take(uint64_t id) {
  std::lock_guard<Mutex> g(mutex_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return nullptr;
  ClientCall* call = it->second;
  pending_.erase(it);
  return call;
}

void ClientStream::OnReadDone(bool ok) {
  if (!ok) {
    stop_writing();
    return;
  }
  uint64_t id = 0;
  uint32_t code = 0;
  grpc::ByteBuffer body;
  const bool good = split_header(read_, &id, &code, &body);
  read_.Clear();
  if (!good) {
    {
      std::lock_guard<Mutex> g(mutex_);
      bad_reply_ = true;
    }
    context_.TryCancel();
    stop_writing();  // no read follows: OnDone fails the waiting calls
    return;
  }
  StartRead(&read_);
  ClientCall* call = take(id);
  if (call == nullptr) return;  // a late reply: its call timed out
  if (code == 0) {
    call->response = std::move(body);
    call->finish(grpc::Status::OK);
  } else {
    call->finish(grpc::Status(static_cast<grpc::StatusCode>(code), body_text(body)));
  }
}

void ClientStream::OnWriteDone(bool ok) {
  grpc::ByteBuffer* next = nullptr;
  bool last = false;
  {
    std::lock_guard<Mutex> g(mutex_);
    writes_.pop_front();
    if (!ok) broken_ = true;
    if (broken_) writes_.clear();
    if (!writes_.empty()) {
      next = &writes_.front();
    } else {
      writing_ = false;
      last = broken_ && !hold_removed_;
      if (last) hold_removed_ = true;
    }
  }
  if (next != nullptr) StartWrite(next);
  if (last) RemoveHold();
}

void ClientStream::OnDone(const grpc::Status& status) {
  std::unordered_map<uint64_t, ClientCall*> waiting;
  std::shared_ptr<ClientStream> self;
  bool bad;
  {
    std::lock_guard<Mutex> g(mutex_);
    broken_ = true;
    waiting.swap(pending_);
    self = std::move(self_);
    bad = bad_reply_;
  }
  grpc::Status why = status;
  if (bad) {
    why = grpc::Status(grpc::StatusCode::INTERNAL, "rpc: bad message: not an RPC stream message");
  } else if (status.ok()) {
    why = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                       "the peer closed the RPC stream (its server shut down)");
  }
  for (auto& w : waiting) w.second->finish(why);
  // Not the last reference: the Endpoint keeps every stream it opened
  // until done() and destroys it itself (See Endpoint::~Endpoint).
  self.reset();
  std::lock_guard<Mutex> g(mutex_);
  done_ = true;
}

bool ClientStream::done() {
  std::lock_guard<Mutex> g(mutex_);
  return done_;
}

void ClientStream::stop_writing() {
  bool last;
  {
    std::lock_guard<Mutex> g(mutex_);
    broken_ = true;
    last = !writing_ && !hold_removed_;
    if (last) hold_removed_ = true;
  }
  if (last) RemoveHold();
}

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
