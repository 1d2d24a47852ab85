// distributed/rpc/peer_memory.h — reading a peer's memory on the same host
// (Linux cross-memory attach, process_vm_readv): the RPC agent's channel for
// large tensors between workers of one machine. Internal to //distributed/rpc.
//
//   peer_memory::Probe me = peer_memory::self();   // sent in the worker table
//   if (peer_memory::readable(their_probe)) ...    // may read that worker
//   peer_memory::read(pid, address, dst, nbytes);  // throws c10::Error
//
// Note [Shared tensors]
// ~~~~~~~~~~~~~~~~~~~~~
// Through gRPC a tensor's bytes are copied four times (into the socket, out
// of it, through HTTP/2 framing) and bounded by gRPC's rate for large
// messages (about 1.1-1.5 GB/s here). Between two workers of one host, a
// tensor of kSharedMinBytes or more is instead described by its address in
// the sender's memory (TensorMeta.remote_address) and the receiver copies
// it once, straight from the sender's pages into a new tensor, with
// process_vm_readv (about 12 GB/s). The kernel allows that for processes
// of the same user that may ptrace each other, so nothing is assumed: each
// worker publishes its pid and the address of a random 64-bit value in the
// worker table, every worker tries to read each peer's value at
// rendezvous, and tells the peer in every message it sends whether it can
// (Envelope.reads_your_memory). A worker shares tensors with a peer only
// after that peer said so; otherwise the bytes go through gRPC as before.
// EMBER_RPC_SHARED_MEMORY=0 turns sharing off.
//
// The sender keeps each shared tensor alive until the receiver is done:
// a request's arguments until its response comes (the callee reads them
// before it runs the call); a response's results until the caller sends
// TENSOR_RELEASE for the response's pin_id, which it does as soon as it has
// read them. A call that ends without a response (a timeout) keeps its
// arguments until the peer is found dead or RPC shuts down, because the
// callee may still be reading them; so does a response whose release never
// comes. What a worker keeps so for one peer is capped (kMaxPinnedBytes);
// past it, tensors to that peer go through gRPC. Like gRPC's zero-copy
// sends, a sender must not write into a tensor it passed to rpc_async (or
// returned from a remote call) before the call completes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace torch {
namespace distributed {
namespace rpc {
namespace peer_memory {

// Tensors smaller than this go through gRPC even to a peer that can read:
// a shared response costs one more message (its release). rpc_sync add of
// two tensors, shared vs through gRPC (2026-12-06, docs/benchmarks.md):
// 4 KiB 118-129 vs 75-85 us, 16 KiB about even, 64 KiB 250 vs 464 us.
constexpr size_t kSharedMinBytes = 64 << 10;
// The most a worker keeps alive for one peer's reads (See Note [Shared
// tensors]).
constexpr size_t kMaxPinnedBytes = size_t{1} << 30;
// A tensor claimed to be larger than this in a peer's memory is refused.
constexpr uint64_t kMaxSharedTensorBytes = uint64_t{1} << 40;

struct Probe {
  int64_t pid = 0;
  uint64_t address = 0;
  uint64_t value = 0;
};

// False when EMBER_RPC_SHARED_MEMORY is "0" (the agent reads it at
// init_rpc).
bool enabled();

// This process: its pid and a random value's address (made once).
Probe self();

// Whether this process can read `peer`'s probe and finds its value there:
// false for another host's process, another pid namespace, a process the
// kernel does not let this one read, or a reused pid. Never throws.
bool readable(const Probe& peer);

// Copies n bytes at `address` in process `pid` to dst. Throws c10::Error
// ("rpc: could not read ... of the sender's memory ...") when the kernel
// refuses or the range is not mapped there.
void read(int64_t pid, uint64_t address, void* dst, size_t n);

// What debug::shared_tensor_counts() reports: tensors described by
// address (sent) and read from a peer (received) by this process, and the
// bytes it keeps alive for peers' reads now.
struct Stats {
  std::atomic<int64_t> sent{0};
  std::atomic<int64_t> received{0};
  std::atomic<int64_t> pinned_bytes{0};
};
Stats& stats();

}  // namespace peer_memory
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
