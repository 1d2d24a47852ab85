// distributed/rpc/transport_streams.h — the client's two ends of a peer's
// stream (See Note [One stream per peer] in transport.cc): ClientStream,
// the asynchronous callers' (gRPC's callback API), with the timer thread
// that fails its calls at their deadline or cancel
// (transport_callback_stream.cc); and SyncStream, a blocking caller's, whose
// completion queue the caller drives itself (transport_sync_stream.cc).
// Endpoint and ClientCall, which use both, are in transport_client.cc.
// Internal to :transport_impl; compiled like it (See Note [TSan and gRPC]
// in transport.h).
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/client_callback.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

// A call id no other call of this process has (both kinds of stream draw
// from it).
uint64_t next_call_id();

// Deadlines of asynchronous stream calls, and cancels: one thread for the
// process, started on first use, that fails a call when its time comes by
// taking it out of its stream. Never destroyed (a worker may call until
// exit).
struct Timers {
  using Key = std::pair<std::chrono::steady_clock::time_point, uint64_t>;

  // Fails call key.second of `stream` with `code` at key.first.
  void add(Key key, std::weak_ptr<ClientStream> stream, grpc::StatusCode code);
  // Fails call `id` of `stream` with CANCELLED now, on the timer thread.
  void cancel(uint64_t id, std::weak_ptr<ClientStream> stream);
  // The call finished first: its deadline goes.
  void remove(Key key);

 private:
  struct Entry {
    std::weak_ptr<ClientStream> stream;
    grpc::StatusCode code;
  };
  void run();

  detail::Mutex mutex_;
  detail::CondVar cv_;
  std::map<Key, Entry> entries_;
  bool started_ = false;
};

Timers& timers();

// The asynchronous callers' stream to one peer: every call_async request
// that fits goes on it; replies come in any order and finish their calls
// on gRPC's callback thread.
class ClientStream final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Starts the call; the stream holds itself until OnDone.
  static std::shared_ptr<ClientStream> open(grpc::ChannelInterface* channel,
                                            const grpc::internal::RpcMethod& method);

  bool broken();

  // Registers `call` under a new id and queues its request. False when the
  // stream broke (the caller opens another).
  bool send(ClientCall* call);

  // The call waiting under `id`, now the caller's to finish; null when it
  // is finished or being finished already.
  ClientCall* take(uint64_t id);

  void cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

  // OnDone has run: gRPC is finished with this stream.
  bool done();

 private:
  ClientStream() = default;

  // No more writes start once the stream broke; the hold goes with the
  // last one in flight.
  void stop_writing();

  grpc::ClientContext context_;
  grpc::ByteBuffer read_;  // gRPC's only while a read is in flight
  detail::Mutex mutex_;
  std::shared_ptr<ClientStream> self_;  // until OnDone
  std::unordered_map<uint64_t, ClientCall*> pending_;
  std::deque<grpc::ByteBuffer> writes_;  // front: in flight when writing_
  bool writing_ = false;
  bool broken_ = false;
  bool hold_removed_ = false;
  bool bad_reply_ = false;
  bool done_ = false;
};

// A blocking caller's stream: one request at a time, whose reply the
// caller reads itself by driving the stream's completion queue (no gRPC
// callback thread between the reply and the caller: See Note [One stream
// per peer] in transport.cc). Owned by one caller while it makes a call,
// else idle in its Endpoint's pool.
class SyncStream {
 public:
  explicit SyncStream(grpc::GenericStub* stub);
  ~SyncStream();
  SyncStream(const SyncStream&) = delete;
  SyncStream& operator=(const SyncStream&) = delete;

  bool healthy() const { return !finished_; }
  // An idle stream's completions that are ready, taken without sleeping (a
  // late reply dropped; See Note [Idle blocking streams] in
  // transport_client.cc). False once the stream ended: destroy it (not
  // under a lock: that ends the call, which may wait for gRPC).
  bool service();
  // The last request never reached the peer: the call was over before its
  // write (an idle stream whose connection closed), or the peer's server
  // ended the stream OK without answering it; so it may be sent again.
  bool unsent() const { return unsent_; }
  void cancel() { context_.TryCancel(); }

  // Sends the call's request and waits for its reply until the call's
  // deadline. A timed-out call leaves the stream usable (a late reply is
  // read and dropped by the next call); a broken one is not reused.
  grpc::Status roundtrip(ClientCall* call);

  // send_raw_stream_message's: `message` as it is, then the first reply
  // (OK) or the end of the stream.
  grpc::Status send_raw(const grpc::ByteBuffer& message,
                        std::chrono::system_clock::time_point deadline);

 private:
  enum Op { kStart = 0, kWrite = 1, kRead = 2, kFinish = 3, kOps = 4 };
  static void* tag(Op op) { return reinterpret_cast<void*>(static_cast<intptr_t>(op) + 1); }

  void completed(int op, bool ok);
  void start_read();
  // Takes a completion that comes within EMBER_RPC_POLL_US without
  // sleeping (Note [Polling before blocking] in transport_sync_stream.cc);
  // TIMEOUT when none came (or another thread is polling).
  grpc::CompletionQueue::NextStatus poll(void** t, bool* ok);
  // One completion taken from the queue. False when the stream broke.
  bool handle(void* t, bool ok);
  // Takes one completion. False when the stream broke; timed_out_ when
  // the deadline passed first.
  bool step(std::chrono::system_clock::time_point deadline, bool bounded);
  grpc::Status timeout();
  // The stream broke: the status the call ended with.
  grpc::Status failure();
  // Waits out the operations in flight (they fail once the call is over;
  // cancelled if they have not after 5 s), then takes the call's status.
  grpc::Status finish_call();

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

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
