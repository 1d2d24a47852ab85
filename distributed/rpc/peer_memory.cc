// See Note [Shared tensors] in peer_memory.h.
#include "distributed/rpc/peer_memory.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "c10/util/Exception.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace peer_memory {
namespace {

// process_vm_readv's count of bytes, or -1 with errno.
ssize_t read_once(int64_t pid, uint64_t address, void* dst, size_t n) {
  struct iovec local {
    dst, n
  };
  struct iovec remote {
    reinterpret_cast<void*>(static_cast<uintptr_t>(address)), n
  };
  return process_vm_readv(static_cast<pid_t>(pid), &local, 1, &remote, 1, 0);
}

uint64_t make_probe_value() {
  std::random_device rd;
  uint64_t v = 0;
  while (v == 0) v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return v;
}

}  // namespace

bool enabled() {
  const char* v = std::getenv("EMBER_RPC_SHARED_MEMORY");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

Probe self() {
  // Read by peers through the kernel only; never written after this.
  static const uint64_t value = make_probe_value();
  Probe p;
  p.pid = static_cast<int64_t>(getpid());
  p.address = reinterpret_cast<uintptr_t>(&value);
  p.value = value;
  return p;
}

bool readable(const Probe& peer) {
  if (peer.pid <= 0 || peer.address == 0 || peer.value == 0) return false;
  uint64_t got = 0;
  if (read_once(peer.pid, peer.address, &got, sizeof(got)) !=
      static_cast<ssize_t>(sizeof(got))) {
    return false;
  }
  return got == peer.value;
}

void read(int64_t pid, uint64_t address, void* dst, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < n) {
    ssize_t k = read_once(pid, address + done, out + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    TORCH_CHECK(k > 0, "rpc: could not read ", n, " bytes at 0x", std::hex,
                address, std::dec, " of the sender's memory (pid ", pid,
                "): ", k < 0 ? std::system_category().message(errno) : "nothing was read",
                " after ", done, " bytes. The sender died or released the "
                "tensor early; set EMBER_RPC_SHARED_MEMORY=0 on every worker "
                "to send tensors through gRPC instead.");
    done += static_cast<size_t>(k);
  }
  stats().received.fetch_add(1, std::memory_order_relaxed);
}

Stats& stats() {
  static Stats s;
  return s;
}

}  // namespace peer_memory
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
