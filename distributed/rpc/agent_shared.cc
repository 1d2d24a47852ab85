// The agent's side of shared tensors: which peers read this worker's
// memory, what it keeps alive for them, and releasing it. See Note [Shared
// tensors] in peer_memory.h.
#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace rpc {

const wire::RemoteSource* Agent::source_of(int rank,
                                           wire::RemoteSource* storage) {
  // peers_ is set once, before any request is admitted or call made.
  if (rank < 0 || rank >= static_cast<int>(peers_.size())) return nullptr;
  const Peer& p = *peers_[rank];
  if (!p.i_read) return nullptr;
  storage->pid = p.probe.pid;
  return storage;
}

bool Agent::may_share_with(int rank) {
  if (rank < 0 || rank >= world_size_) return false;
  std::lock_guard<std::mutex> g(pins_mutex_);
  return may_share_with_locked(*peers_[rank]);
}

bool Agent::may_share_with_locked(const Peer& p) const {
  return p.reads_me.load(std::memory_order_acquire) &&
         p.pinned_bytes < peer_memory::kMaxPinnedBytes;
}

// Called for a request once its token is checked, and for a response.
void Agent::learn_reader(int rank, const ember::rpc::Envelope& env) {
  if (!env.reads_your_memory() || !share_memory_) return;
  if (rank < 0 || rank >= static_cast<int>(peers_.size())) return;
  peers_[rank]->reads_me.store(true, std::memory_order_release);
}

void Agent::count_pinned_locked(Peer& p, int64_t bytes) {
  p.pinned_bytes = static_cast<size_t>(static_cast<int64_t>(p.pinned_bytes) + bytes);
  peer_memory::stats().pinned_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

void Agent::pin(int rank, uint64_t id, std::vector<at::TensorBase> tensors) {
  Pinned pinned;
  pinned.rank = rank;
  for (const auto& t : tensors) pinned.bytes += t.nbytes();
  pinned.tensors = std::move(tensors);
  std::lock_guard<std::mutex> g(pins_mutex_);
  count_pinned_locked(*peers_[rank], static_cast<int64_t>(pinned.bytes));
  pins_.emplace(id, std::move(pinned));
}

// Only the caller the results were shared with can release them.
void Agent::unpin(int rank, uint64_t id) {
  std::vector<at::TensorBase> dropped;  // freed after the lock
  std::lock_guard<std::mutex> g(pins_mutex_);
  auto it = pins_.find(id);
  if (it == pins_.end() || it->second.rank != rank) return;
  count_pinned_locked(*peers_[rank], -static_cast<int64_t>(it->second.bytes));
  dropped = std::move(it->second.tensors);
  pins_.erase(it);
}

// A call that ended without a response: the callee may still be reading
// its arguments, so they live until the callee is found dead or RPC stops.
void Agent::keep_stale_args(int rank, std::vector<at::TensorBase> args) {
  if (args.empty()) return;
  size_t bytes = 0;
  for (const auto& t : args) bytes += t.nbytes();
  std::lock_guard<std::mutex> g(pins_mutex_);
  Peer& p = *peers_.at(rank);
  count_pinned_locked(p, static_cast<int64_t>(bytes));
  for (auto& t : args) p.stale_args.push_back(std::move(t));
}

// Fire and forget: a release that fails (the callee died or shut down)
// leaves nothing behind that its death or shutdown does not drop.
void Agent::send_release(int to, uint64_t pin_id) {
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::TENSOR_RELEASE);
  env.set_pin_id(pin_id);
  wire::Encoder enc;
  try {
    send(to, env, enc, options_.rpc_timeout, "release of shared tensors",
         [](wire::Decoded&) { return c10::IValue(); });
  } catch (const c10::Error&) {
  }
}

void Agent::drop_pins(int rank) {
  std::vector<at::TensorBase> dropped;  // freed outside the lock
  std::lock_guard<std::mutex> g(pins_mutex_);
  int64_t bytes = 0;
  for (auto it = pins_.begin(); it != pins_.end();) {
    if (rank >= 0 && it->second.rank != rank) {
      ++it;
      continue;
    }
    bytes += static_cast<int64_t>(it->second.bytes);
    for (auto& t : it->second.tensors) dropped.push_back(std::move(t));
    it = pins_.erase(it);
  }
  for (auto& p : peers_) {
    if (p == nullptr || (rank >= 0 && p->info.id != rank)) continue;
    for (auto& t : p->stale_args) {
      bytes += static_cast<int64_t>(t.nbytes());
      dropped.push_back(std::move(t));
    }
    p->stale_args.clear();
    p->pinned_bytes = 0;
  }
  peer_memory::stats().pinned_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

namespace debug {
SharedTensorCounts shared_tensor_counts() {
  const auto& s = peer_memory::stats();
  SharedTensorCounts c;
  c.sent = s.sent.load(std::memory_order_relaxed);
  c.received = s.received.load(std::memory_order_relaxed);
  c.pinned_bytes = s.pinned_bytes.load(std::memory_order_relaxed);
  return c;
}
}  // namespace debug

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
