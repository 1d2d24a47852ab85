// The gRPC agent's joining and leaving: rendezvous through rank 0 and the
// shutdown barrier. See Note [Agent threads] in agent.h.
#include <chrono>
#include <sstream>

#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace rpc {

using detail::env_or;
using detail::random_hex;
using detail::same_secret;
using detail::status_text;

// ---------------------------------------------------------------------------
// Rendezvous. See Note [Agent threads]: rank 0 answers each JOIN_CALL when
// the last rank has joined, from whichever thread saw it join.

void Agent::rendezvous() {
  ember::rpc::WorkerEntry self;
  self.set_name(name_);
  self.set_rank(rank_);
  self.set_tcp_address(tcp_address_);
  self.set_unix_address(unix_address_);
  self.set_hostname(hostname_);
  if (share_memory_) {  // See Note [Shared tensors]
    const peer_memory::Probe probe = peer_memory::self();
    self.set_pid(probe.pid);
    self.set_probe_address(probe.address);
    self.set_probe_value(probe.value);
  }
  if (rank_ == 0) {
    std::unique_lock<std::mutex> l(mutex_);  // handle_join reads token_
    if (token_.empty()) token_ = random_hex(16);
    joined_[0] = self;
    rank_by_name_[name_] = 0;
    if (static_cast<int>(joined_.size()) < world_size_) {
      bool done = cv_.wait_for(
          l, std::chrono::microseconds(
                 static_cast<int64_t>(options_.init_timeout * 1e6)),
          [this] { return static_cast<int>(joined_.size()) == world_size_; });
      if (!done) {
        std::ostringstream missing;
        bool first = true;
        for (int r = 1; r < world_size_; ++r) {
          if (!joined_.count(r)) {
            missing << (first ? "" : ", ") << r;
            first = false;
          }
        }
        rendezvous_error_ = "init_rpc: rendezvous timed out after " +
                            std::to_string(options_.init_timeout) +
                            " s: rank(s) " + missing.str() +
                            " did not join (world_size=" +
                            std::to_string(world_size_) +
                            "). Start every rank, or fix WORLD_SIZE.";
        for (auto& w : join_waiters_) {
          reply_error(w.second.call,
                      ember::rpc::JOIN_RESPONSE, rendezvous_error_);
        }
        join_waiters_.clear();
        l.unlock();
        throw make_error(rendezvous_error_);
      }
    }
    ember::rpc::WorkerTable table;
    for (auto& j : joined_) *table.add_workers() = j.second;
    table.set_token(token_);
    for (auto& w : join_waiters_) {
      ember::rpc::Envelope env;
      env.set_kind(ember::rpc::JOIN_RESPONSE);
      *env.mutable_table() = table;
      reply(w.second.call, env);
    }
    join_waiters_.clear();
    l.unlock();
    connect_peers(table);
    return;
  }
  // Other ranks: one JOIN_CALL to rank 0, waiting for it to come up.
  std::string master =
      (master_host_.find(':') != std::string::npos ? "[" + master_host_ + "]"
                                                   : master_host_) +
      ":" + std::to_string(master_port_);
  transport::Endpoint endpoint(master, tls_);
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::JOIN_CALL);
  env.set_token(token_);
  env.set_from_rank(rank_);
  *env.mutable_join()->mutable_worker() = self;
  env.mutable_join()->set_world_size(world_size_);
  transport::ClientCall join;
  join.request = wire::encode_plain(env);
  join.set_wait_for_ready();
  join.set_timeout(options_.init_timeout + 5);
  grpc::Status status = transport::call_blocking(endpoint, &join);
  TORCH_CHECK(status.ok(), "init_rpc: worker '", name_, "' (rank ", rank_,
              ") could not join rank 0 at ", master, ": ", status_text(status),
              ". Check MASTER_ADDR/MASTER_PORT and that rank 0 is running.");
  wire::Decoded reply = wire::decode(join.response);
  TORCH_CHECK(reply.envelope.error().empty(), reply.envelope.error());
  TORCH_CHECK(reply.envelope.kind() == ember::rpc::JOIN_RESPONSE &&
                  reply.envelope.has_table(),
              "init_rpc: rank 0 at ", master,
              " answered the join with something else; is it an Ember RPC "
              "worker of this version?");
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (token_.empty()) token_ = reply.envelope.table().token();
  }
  connect_peers(reply.envelope.table());
}

void Agent::connect_peers(const ember::rpc::WorkerTable& table) {
  std::vector<std::unique_ptr<Peer>> peers(world_size_);
  for (const auto& w : table.workers()) {
    TORCH_CHECK(w.rank() >= 0 && w.rank() < world_size_ && !peers[w.rank()],
                "init_rpc: rank 0 sent a bad worker table.");
    auto p = std::make_unique<Peer>();
    p->info = WorkerInfo{w.name(), w.rank()};
    p->tcp_address = w.tcp_address();
    p->unix_address = w.unix_address();
    p->hostname = w.hostname();
    p->probe.pid = w.pid();
    p->probe.address = w.probe_address();
    p->probe.value = w.probe_value();
    p->i_read = share_memory_ && p->hostname == hostname_ &&
                peer_memory::readable(p->probe);
    const bool local = options_.use_unix_sockets && !p->unix_address.empty() &&
                       p->hostname == hostname_;
    p->endpoint = std::make_unique<transport::Endpoint>(
        local ? p->unix_address : p->tcp_address, tls_);
    peers[w.rank()] = std::move(p);
  }
  for (int r = 0; r < world_size_; ++r) {
    TORCH_CHECK(peers[r] != nullptr, "init_rpc: rank 0's table lacks rank ",
                r, ".");
  }
  {
    std::lock_guard<std::mutex> g(mutex_);
    peers_ = std::move(peers);
    for (auto& p : peers_) rank_by_name_[p->info.name] = p->info.id;
    ready_ = true;
  }
  admit_deferred();
}

void Agent::handle_join(wire::Decoded& msg, transport::ServerCall call) {
  const auto& join = msg.envelope.join();
  const auto& w = join.worker();
  std::unique_lock<std::mutex> l(mutex_);
  auto fail = [&](const std::string& why) {
    l.unlock();
    reply_error(call, ember::rpc::JOIN_RESPONSE, why);
  };
  if (rank_ != 0) {
    return fail("init_rpc: worker '" + name_ + "' (rank " +
                std::to_string(rank_) +
                ") is not rank 0 and cannot take joins.");
  }
  const std::string who =
      "worker '" + w.name() + "' (rank " + std::to_string(w.rank()) + ")";
  if (!rendezvous_error_.empty()) return fail(rendezvous_error_);
  if (ready_) {
    return fail("init_rpc: " + who +
                " joined after the group was complete (world_size=" +
                std::to_string(world_size_) + ").");
  }
  const bool rank0_token_set =
      !options_.token.empty() || !env_or("EMBER_RPC_TOKEN", "").empty();
  if (rank0_token_set && !same_secret(msg.envelope.token(), token_)) {
    return fail("init_rpc: " + who +
                " presented a different token than rank 0; every worker needs "
                "the same EMBER_RPC_TOKEN.");
  }
  if (join.world_size() != world_size_) {
    return fail("init_rpc: " + who + " has world_size=" +
                std::to_string(join.world_size()) + " but rank 0 has world_size=" +
                std::to_string(world_size_) +
                "; start every worker with the same WORLD_SIZE.");
  }
  if (w.rank() <= 0 || w.rank() >= world_size_) {
    return fail("init_rpc: " + who + " has a rank outside [1, " +
                std::to_string(world_size_) + ").");
  }
  if (w.name().empty() || w.name().size() > 128) {
    return fail("init_rpc: " + who + " has a bad name.");
  }
  auto taken = joined_.find(w.rank());
  if (taken != joined_.end()) {
    return fail("init_rpc: duplicate rank " + std::to_string(w.rank()) +
                ": " + who + " and worker '" + taken->second.name() +
                "' both claim it; give every worker its own RANK.");
  }
  auto name = rank_by_name_.find(w.name());
  if (name != rank_by_name_.end()) {
    return fail("init_rpc: duplicate name '" + w.name() + "': ranks " +
                std::to_string(name->second) + " and " +
                std::to_string(w.rank()) + " both use it; names must be unique.");
  }
  joined_[w.rank()] = w;
  rank_by_name_[w.name()] = w.rank();
  join_waiters_[w.rank()] = Waiter{call};
  if (static_cast<int>(joined_.size()) == world_size_) cv_.notify_all();
}

// ---------------------------------------------------------------------------
// Shutdown barrier (rank 0 coordinates; see "Shutdown and faults" in
// docs/distributed.md).

void Agent::handle_barrier(wire::Decoded& msg, transport::ServerCall call) {
  std::unique_lock<std::mutex> l(mutex_);
  if (rank_ != 0) {
    l.unlock();
    reply_error(call, ember::rpc::SHUTDOWN_BARRIER_RESPONSE,
                "rpc: the shutdown barrier runs on rank 0");
    return;
  }
  barrier_joined_.insert(msg.envelope.from_rank());
  if (barrier_done_) {
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::SHUTDOWN_BARRIER_RESPONSE);
    for (int d : barrier_dead_) env.add_dead_ranks(d);
    l.unlock();
    reply(call, env);
    return;
  }
  barrier_waiters_.push_back(Waiter{call});
  maybe_release_barrier_locked();
}

void Agent::maybe_release_barrier_locked() {
  if (barrier_done_ || !barrier_joined_.count(0)) return;
  for (int r = 0; r < world_size_; ++r) {
    if (!barrier_joined_.count(r) && !dead_.count(r)) return;
  }
  barrier_done_ = true;
  for (int r = 0; r < world_size_; ++r) {
    if (!barrier_joined_.count(r)) barrier_dead_.push_back(r);
  }
  for (auto& w : barrier_waiters_) {
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::SHUTDOWN_BARRIER_RESPONSE);
    env.set_from_rank(rank_);
    for (int d : barrier_dead_) env.add_dead_ranks(d);
    transport::finish(w.call, wire::encode_plain(env));
  }
  barrier_waiters_.clear();
  cv_.notify_all();
}

void Agent::shutdown(bool graceful) {
  std::vector<int> dead;
  if (graceful) {
    // 1. This worker's own calls finish (each is bounded by its timeout).
    wait_outstanding();
    // 2. Its user RRefs are released; the owners drop their forks.
    std::vector<std::shared_ptr<detail::RRefState>> users;
    {
      std::lock_guard<std::mutex> g(mutex_);
      stopping_ = true;
      for (auto& u : users_) {
        if (auto s = u.second.lock()) users.push_back(std::move(s));
      }
    }
    for (auto& s : users) release(*s, /*wait=*/true);
    users.clear();
    wait_outstanding();
    // 3. The barrier: every live worker got here, so nobody still sends.
    if (rank_ == 0) {
      std::unique_lock<std::mutex> l(mutex_);
      barrier_joined_.insert(0);
      maybe_release_barrier_locked();
      while (!barrier_done_) {
        // Probe the ranks that have not arrived: a dead one is left out.
        std::vector<int> probe;
        for (int r = 1; r < world_size_; ++r) {
          if (!barrier_joined_.count(r) && !dead_.count(r)) probe.push_back(r);
        }
        l.unlock();
        for (int r : probe) {
          ember::rpc::Envelope ping;
          ping.set_kind(ember::rpc::PING);
          wire::Encoder enc;
          try {
            send(r, ping, enc, 1.0, "shutdown probe",
                 [](wire::Decoded&) { return c10::IValue(); });
          } catch (const c10::Error&) {
          }
        }
        l.lock();
        cv_.wait_for(l, std::chrono::milliseconds(200),
                     [this] { return barrier_done_; });
        maybe_release_barrier_locked();
      }
      dead = barrier_dead_;
      l.unlock();
      wait_outstanding();
    } else {
      ember::rpc::Envelope env;
      env.set_kind(ember::rpc::SHUTDOWN_BARRIER_CALL);
      wire::Encoder enc;
      std::vector<int> result;
      auto fut = send(0, env, enc, 0.0, "shutdown barrier",
                      [&result](wire::Decoded& d) {
                        for (int r : d.envelope.dead_ranks()) result.push_back(r);
                        return c10::IValue();
                      });
      fut->wait();
      if (fut->hasError()) {
        dead.push_back(0);
      } else {
        dead = result;
      }
    }
  } else {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
    for (auto* c : pending_) c->rpc.cancel();
  }
  {
    std::lock_guard<std::mutex> g(mutex_);
    closed_ = true;
  }
  // A fetch still waiting for a value that will never come is answered now,
  // so that the server can finish every call.
  std::vector<std::shared_ptr<Owner>> owners;
  {
    std::lock_guard<std::mutex> g(mutex_);
    for (auto& o : owners_) owners.push_back(o.second);
  }
  for (auto& o : owners) {
    o->value->setErrorIfNeeded(std::make_exception_ptr(
        make_error("rpc: the owner of this RRef shut down")));
  }
  owners.clear();
  // This worker's blocking connections close first: each peer's server
  // waits for them in its own shutdown (Note [Idle blocking streams] in
  // transport_client.cc).
  for (auto& p : peers_) {
    if (p != nullptr && p->endpoint != nullptr) p->endpoint->close_blocking();
  }
  server_->shutdown(graceful ? 2.0 : 0.1);
  wait_outstanding();
  drop_pins(-1);  // nobody reads this worker's memory any more
  {
    std::lock_guard<std::mutex> g(mutex_);
    owners_.clear();
    children_.clear();
    deleted_forks_.clear();
    for (auto& u : users_) {
      if (auto s = u.second.lock()) forget_user(*s);
    }
    users_.clear();
    ready_ = false;
  }
  if (!dead.empty()) {
    std::ostringstream s;
    s << "shutdown: completed, but these workers died before it:";
    for (int r : dead) {
      s << " '" << peers_[r]->info.name << "' (rank " << r << ")";
    }
    s << ".";
    throw make_error(s.str());
  }
}

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
