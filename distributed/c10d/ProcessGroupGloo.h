// distributed/c10d/ProcessGroupGloo.h — c10d::ProcessGroupGloo: the CPU
// collectives on Gloo (Debian's libgloo, its TCP transport), the library
// PyTorch's own CPU collectives run on. Ember adds no algorithm or transport:
// each collective is one Gloo call on the group's worker thread.
//
//   auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
//   c10d::ProcessGroupGloo::Options options;     // timeout 30 min, as PyTorch
//   auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
//   std::vector<at::Tensor> t = {grad};
//   pg->allreduce(t)->wait();
//
// Tensors: CPU, dtypes Float, Double, Half, Int, Long, Char, Byte; any
// strides (a non-contiguous tensor goes through a contiguous copy).
// Collectives run in the order they were issued, one at a time, on one
// worker thread; send/recv are posted at once (their Work's wait() waits).
// reduce_scatter is an allreduce of the inputs followed by a copy of this
// rank's part (Gloo has no reduce-scatter in its options API): correct, with
// twice the traffic of a dedicated algorithm.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/c10d/ProcessGroup.h"
#include "distributed/c10d/Store.h"

namespace c10d {

// ProcessGroupGloo::Options
struct ProcessGroupGlooOptions {
  // Of every collective without its own, and of connecting the group.
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
  // The address (or host name) of this machine that the other processes
  // reach this one at; Gloo listens there on a free port.
  std::string hostname = "127.0.0.1";
  // Or the network interface to use (PyTorch's GLOO_SOCKET_IFNAME), e.g.
  // "eth0"; takes precedence over hostname when set.
  std::string iface;
};

class ProcessGroupGloo : public ProcessGroup {
 public:
  using Options = ProcessGroupGlooOptions;

  // Connects the group: every rank publishes its Gloo address in `store`
  // and connects to every other (a full mesh). Throws c10::Error at the
  // timeout when a rank does not come.
  ProcessGroupGloo(const c10::intrusive_ptr<Store>& store, int rank, int size,
                   Options options = Options());
  // Finishes the queued collectives first.
  ~ProcessGroupGloo() override;

  const std::string getBackendName() const override { return "gloo"; }

  c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors,
                                     const AllreduceOptions& opts = AllreduceOptions()) override;
  c10::intrusive_ptr<Work> broadcast(std::vector<at::Tensor>& tensors,
                                     const BroadcastOptions& opts = BroadcastOptions()) override;
  c10::intrusive_ptr<Work> allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                     std::vector<at::Tensor>& inputTensors,
                                     const AllgatherOptions& opts = AllgatherOptions()) override;
  c10::intrusive_ptr<Work> reduce_scatter(
      std::vector<at::Tensor>& outputTensors, std::vector<std::vector<at::Tensor>>& inputTensors,
      const ReduceScatterOptions& opts = ReduceScatterOptions()) override;
  c10::intrusive_ptr<Work> barrier(const BarrierOptions& opts = BarrierOptions()) override;
  c10::intrusive_ptr<Work> send(std::vector<at::Tensor>& tensors, int dstRank, int tag) override;
  c10::intrusive_ptr<Work> recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) override;

  const Options& options() const noexcept { return options_; }

  // How many collectives ran on a thread that waited for them rather than
  // on the group's worker (See Note [Running a collective on its waiter]
  // in ProcessGroupGloo.cc); for tests and benchmarks.
  int64_t collectives_run_on_waiters() const;

  struct Impl;

 private:
  Options options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace c10d
