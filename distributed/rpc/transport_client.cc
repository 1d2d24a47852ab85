// The transport's client: channels, unary calls, and the client's ends of
// a peer's streams (See Note [One stream per peer] in transport.cc).
// Compiled without -fsanitize=thread under --config=tsan: See Note [TSan and
// gRPC] in transport.h.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/client_callback.h>
#include <grpcpp/impl/codegen/client_unary_call.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

using namespace detail;  // NOLINT: the transport's own helpers

namespace {
std::atomic<uint64_t> g_next_call_id{1};

grpc::Status unreachable() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "the RPC stream to the peer closed as it opened");
}
}  // namespace

// Deadlines of asynchronous stream calls, and cancels: one thread for the
// process, started on first use, that fails a call when its time comes by
// taking it out of its stream. Never destroyed (a worker may call until
// exit).
struct Timers {
  using Key = std::pair<std::chrono::steady_clock::time_point, uint64_t>;
  struct Entry {
    std::weak_ptr<ClientStream> stream;
    grpc::StatusCode code;
  };

  void add(Key key, std::weak_ptr<ClientStream> stream, grpc::StatusCode code) {
    std::lock_guard<Mutex> g(mutex_);
    if (!started_) {
      started_ = true;
      std::thread([this] { run(); }).detach();
    }
    const bool first = entries_.empty() || key < entries_.begin()->first;
    entries_.emplace(key, Entry{std::move(stream), code});
    if (first) cv_.notify_one();
  }

  // Fails call `id` of `stream` with CANCELLED now, on the timer thread.
  void cancel(uint64_t id, std::weak_ptr<ClientStream> stream) {
    add({std::chrono::steady_clock::time_point{}, id}, std::move(stream),
        grpc::StatusCode::CANCELLED);
  }

  void remove(Key key) {
    std::lock_guard<Mutex> g(mutex_);
    entries_.erase(key);
  }

 private:
  void run();

  Mutex mutex_;
  CondVar cv_;
  std::map<Key, Entry> entries_;
  bool started_ = false;
};

Timers& timers() {
  static Timers* const kTimers = new Timers;
  return *kTimers;
}

class ClientStream final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Starts the call; the stream holds itself until OnDone.
  static std::shared_ptr<ClientStream> open(grpc::ChannelInterface* channel,
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

  bool broken() {
    std::lock_guard<Mutex> g(mutex_);
    return broken_;
  }

  // Registers `call` under a new id and queues its request. False when the
  // stream broke (the caller opens another).
  bool send(ClientCall* call) {
    const uint64_t id = g_next_call_id.fetch_add(1, std::memory_order_relaxed);
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

  // The call waiting under `id`, now the caller's to finish; null when it
  // is finished or being finished already.
  ClientCall* take(uint64_t id) {
    std::lock_guard<Mutex> g(mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return nullptr;
    ClientCall* call = it->second;
    pending_.erase(it);
    return call;
  }

  void cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override {
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

  void OnWriteDone(bool ok) override {
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

  void OnDone(const grpc::Status& status) override {
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

  // OnDone has run: gRPC is finished with this stream.
  bool done() {
    std::lock_guard<Mutex> g(mutex_);
    return done_;
  }

 private:
  ClientStream() = default;

  // No more writes start once the stream broke; the hold goes with the
  // last one in flight.
  void stop_writing() {
    bool last;
    {
      std::lock_guard<Mutex> g(mutex_);
      broken_ = true;
      last = !writing_ && !hold_removed_;
      if (last) hold_removed_ = true;
    }
    if (last) RemoveHold();
  }

  grpc::ClientContext context_;
  grpc::ByteBuffer read_;  // gRPC's only while a read is in flight
  Mutex mutex_;
  std::shared_ptr<ClientStream> self_;  // until OnDone
  std::unordered_map<uint64_t, ClientCall*> pending_;
  std::deque<grpc::ByteBuffer> writes_;  // front: in flight when writing_
  bool writing_ = false;
  bool broken_ = false;
  bool hold_removed_ = false;
  bool bad_reply_ = false;
  bool done_ = false;
};

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

// A blocking caller's stream: one request at a time, whose reply the
// caller reads itself by driving the stream's completion queue (no gRPC
// callback thread between the reply and the caller: See Note [One stream
// per peer] in transport.cc). Owned by one caller while it makes a call, else idle in its
// Endpoint's pool.
class SyncStream {
 public:
  explicit SyncStream(grpc::GenericStub* stub) : call_(nullptr) {
    // The call's headers go out with its first message (no operation of
    // their own: the async stream's start and writes share one op set).
    context_.set_initial_metadata_corked(true);
    call_ = stub->PrepareCall(&context_, kStreamMethod, &cq_);
    call_->StartCall(nullptr);
  }

  ~SyncStream() {
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

  bool healthy() const { return !finished_; }
  // The last request never left: the call was over before its write (an
  // idle stream whose connection closed), so it may be sent again.
  bool unsent() const { return unsent_; }
  void cancel() { context_.TryCancel(); }

  // Sends the call's request and waits for its reply until the call's
  // deadline. A timed-out call leaves the stream usable (a late reply is
  // read and dropped by the next call); a broken one is not reused.
  // send_raw_stream_message's: `message` as it is, then the first reply
  // (OK) or the end of the stream.
  grpc::Status send_raw(const grpc::ByteBuffer& message,
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

  grpc::Status roundtrip(ClientCall* call) {
    const uint64_t id = g_next_call_id.fetch_add(1, std::memory_order_relaxed);
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

 private:
  enum Op { kStart = 0, kWrite = 1, kRead = 2, kFinish = 3, kOps = 4 };
  static void* tag(Op op) { return reinterpret_cast<void*>(static_cast<intptr_t>(op) + 1); }

  void completed(int op, bool ok) {
    pending_[op] = false;
    if (op == kWrite && !ok) unsent_ = true;
  }

  void start_read() {
    call_->Read(&read_, tag(kRead));
    pending_[kRead] = true;
  }

  // Takes one completion. False when the stream broke; timed_out_ when
  // the deadline passed first.
  bool step(std::chrono::system_clock::time_point deadline, bool bounded) {
    timed_out_ = false;
    void* t = nullptr;
    bool ok = false;
    grpc::CompletionQueue::NextStatus r;
    if (bounded) {
      r = cq_.AsyncNext(&t, &ok, deadline);
    } else {
      r = cq_.Next(&t, &ok) ? grpc::CompletionQueue::GOT_EVENT : grpc::CompletionQueue::SHUTDOWN;
    }
    if (r == grpc::CompletionQueue::TIMEOUT) {
      timed_out_ = true;
      return true;
    }
    if (r != grpc::CompletionQueue::GOT_EVENT) return false;
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

  grpc::Status timeout() {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded");
  }

  // The stream broke: the status the call ended with.
  grpc::Status failure() {
    if (bad_reply_) context_.TryCancel();  // the call itself is still up
    grpc::Status status = finish_call();
    if (bad_reply_) {
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          "rpc: bad message: not an RPC stream message");
    }
    if (status.ok()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the peer closed the RPC stream (its server shut down)");
    }
    return status;
  }

  // Waits out the operations in flight (they fail once the call is over;
  // cancelled if they have not after 5 s), then takes the call's status.
  grpc::Status finish_call() {
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

  // Destroyed in reverse: the call, its context (which holds the call),
  // then the queue it used.
  grpc::CompletionQueue cq_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool pending_[kOps] = {};
  grpc::ByteBuffer read_;
  grpc::ByteBuffer reply_;
  uint64_t want_ = 0;
  bool got_reply_ = false;
  bool accept_any_ = false;
  bool timed_out_ = false;
  bool bad_reply_ = false;
  bool finished_ = false;
  bool unsent_ = false;
};

Endpoint::Endpoint(const std::string& target, const Tls& tls) {
  keep_grpc_initialized();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A dead peer is noticed by the transport at once: its kernel closes the
  // connection, on this host or another. Keepalive pings are for a silent
  // one (a host down, a cable out): noticed within ~25 s. The ack of a ping
  // waits behind the peer's other work, so the timeout is gRPC's default:
  // 2 s closed healthy connections of four busy workers on two loaded cores
  // (fault_test under --config=tsan, "keepalive watchdog timeout"), 5 s
  // still did now and then.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  // One connection per peer channel, not shared with other channels.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  set_bulk_args([&](const char* k, int v) { args.SetInt(k, v); });
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls.enabled()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls.root_certs;
    ssl.pem_private_key = tls.private_key;
    ssl.pem_cert_chain = tls.cert_chain;
    credentials = grpc::SslCredentials(ssl);
    if (!tls.server_name.empty()) {
      args.SetSslTargetNameOverride(tls.server_name);
    }
  }
  channel_ = grpc::CreateCustomChannel(target, credentials, args);
  // Registered once per channel: a call then skips the method lookup.
  method_ = std::make_unique<grpc::internal::RpcMethod>(
      kMethod, grpc::internal::RpcMethod::NORMAL_RPC, channel_);
  stream_method_ = std::make_unique<grpc::internal::RpcMethod>(
      kStreamMethod, grpc::internal::RpcMethod::BIDI_STREAMING, channel_);
  stub_ = std::make_unique<grpc::GenericStub>(channel_);
}

// Note [Streams end before their channel]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A callback stream's gRPC call holds a reference to the completion queue
// that gRPC shares between channels and servers, which the last grpc::Channel
// or grpc::Server to go shuts down; a call released after that (by its
// OnDone on gRPC's thread, as a unary call never outlived its channel)
// failed gRPC's assertion "prior > 0" in grpc_cq_internal_unref. So the
// Endpoint holds every stream it opened, cancels them when it goes, waits
// for their OnDone, and destroys them itself before the channel; replaced
// streams that are done are destroyed when the next one opens.
Endpoint::~Endpoint() {
  std::vector<std::shared_ptr<ClientStream>> streams;
  std::vector<std::unique_ptr<SyncStream>> idle;
  {
    std::lock_guard<Mutex> g(mutex_);
    streams.swap(retired_);
    if (stream_ != nullptr) streams.push_back(std::move(stream_));
    idle.swap(idle_);
  }
  for (auto& s : streams) s->cancel();
  // No call waits on them by now: OnDone comes at once after the cancel.
  // Bounded all the same; a stream still referenced elsewhere (a timer
  // entry being processed) is let go after it.
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (auto& s : streams) {
    while ((!s->done() || s.use_count() > 1) && std::chrono::steady_clock::now() < limit) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  streams.clear();
  idle.clear();  // each cancels its call and waits for it to end
}

std::shared_ptr<ClientStream> Endpoint::stream() {
  std::lock_guard<Mutex> g(mutex_);
  if (stream_ == nullptr || stream_->broken()) {
    if (stream_ != nullptr) retired_.push_back(std::move(stream_));
    // See Note [Streams end before their channel].
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](const std::shared_ptr<ClientStream>& r) {
                                    return r->done() && r.use_count() == 1;
                                  }),
                   retired_.end());
    stream_ = ClientStream::open(channel_.get(), *stream_method_);
  }
  return stream_;
}

void ClientCall::set_timeout(double seconds) {
  if (seconds <= 0) return;
  context_.set_deadline(deadline_after(seconds));
  has_deadline_ = true;
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

void ClientCall::set_wait_for_ready() {
  wait_for_ready_ = true;
  context_.set_wait_for_ready(true);
}

void ClientCall::cancel() {
  std::shared_ptr<ClientStream> s;
  uint64_t id = 0;
  {
    std::lock_guard<Mutex> g(mutex_);
    cancelled_ = true;
    s = stream_;
    id = id_;
    // A blocking caller's stream: the caller wakes with CANCELLED and drops it.
    if (sync_ != nullptr) sync_->cancel();
  }
  // On the stream: failed by the timer thread, now (the caller may hold
  // the lock its completion takes). A unary call: by gRPC.
  if (s != nullptr) timers().cancel(id, s);
  context_.TryCancel();
}

bool ClientCall::on_stream() const {
  return !wait_for_ready_ && request.Length() <= kStreamMaxBytes;
}

// Runs once per call, by whoever took it out of its stream.
void ClientCall::finish(grpc::Status status) {
  if (has_timer_) timers().remove({deadline_, id_});
  done_(done_a_, done_b_, std::move(status));
}

// Sends the call on the peer's stream, opening a new one if it broke. A
// fresh stream that broke at once (the peer is unreachable) is answered
// with its failure here. No member is touched after send(): the call may be
// finished and freed by then (ClientStream::send applies an earlier cancel).
bool ClientCall::send_on(Endpoint& to) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::shared_ptr<ClientStream> s = to.stream();
    if (s->send(this)) return true;
  }
  return false;
}

ClientCall::ClientCall() = default;
ClientCall::~ClientCall() = default;

std::unique_ptr<SyncStream> Endpoint::take_sync() {
  {
    std::lock_guard<Mutex> g(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<SyncStream> s = std::move(idle_.back());
      idle_.pop_back();
      return s;
    }
  }
  return std::make_unique<SyncStream>(stub_.get());
}

void Endpoint::give_back(std::unique_ptr<SyncStream> s) {
  std::lock_guard<Mutex> g(mutex_);
  idle_.push_back(std::move(s));
}

grpc::Status send_raw_stream_message(Endpoint& to, const grpc::ByteBuffer& message,
                                     double timeout_s) {
  SyncStream s(to.stub_.get());
  return s.send_raw(message, deadline_after(timeout_s));
}

grpc::Status call_blocking(Endpoint& to, ClientCall* call) {
  if (!call->on_stream()) {
    return grpc::internal::BlockingUnaryCall(to.channel_.get(), *to.method_, &call->context_,
                                             call->request, &call->response);
  }
  // A pooled stream may have died while idle (its connection closed, the
  // peer is back on a new one): a request it never sent goes once more, on
  // a new stream.
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<SyncStream> s =
        attempt == 0 ? to.take_sync() : std::make_unique<SyncStream>(to.stub_.get());
    {
      std::lock_guard<Mutex> g(call->mutex_);
      if (call->cancelled_) {
        to.give_back(std::move(s));
        return grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled");
      }
      call->sync_ = s.get();
    }
    grpc::Status status = s->roundtrip(call);
    {
      std::lock_guard<Mutex> g(call->mutex_);
      call->sync_ = nullptr;
    }
    if (s->healthy()) {
      to.give_back(std::move(s));
    } else if (attempt == 0 && s->unsent()) {
      continue;
    }
    return status;
  }
}

void call_async(Endpoint& to, ClientCall* call, Done done, void* a, void* b) {
  call->done_ = done;
  call->done_a_ = a;
  call->done_b_ = b;
  if (call->on_stream()) {
    if (!call->send_on(to)) done(a, b, unreachable());
    return;
  }
  // The completion's closure holds one pointer, so std::function keeps it
  // inline (no heap block per call).
  grpc::internal::CallbackUnaryCall(to.channel_.get(), *to.method_, &call->context_, &call->request,
                                    &call->response, [call](grpc::Status status) {
                                      call->done_(call->done_a_, call->done_b_, std::move(status));
                                    });
}

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
