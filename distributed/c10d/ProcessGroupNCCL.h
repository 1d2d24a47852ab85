// distributed/c10d/ProcessGroupNCCL.h — c10d::ProcessGroupNCCL: the CUDA
// collectives on NCCL (the toolkit's libnccl), the library PyTorch's own CUDA
// collectives run on. Ember adds no algorithm or transport: each collective
// is one NCCL call on the group's stream (Note [The NCCL group's streams]).
//
//   auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
//   auto pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size);
//   std::vector<at::Tensor> t = {grad};          // a CUDA tensor, one per rank
//   pg->allreduce(t)->wait();
//
// In a program: depend on //distributed/c10d:nccl (which needs the CUDA
// toolkit; it also makes init_process_group("nccl") work). One CUDA device
// per process (the tensors' device; NCCL refuses two ranks on one GPU);
// dtypes Float, Double, Half, BFloat16, Int, Long, Char, Byte; contiguous
// tensors, one per call.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "distributed/c10d/ProcessGroup.h"
#include "distributed/c10d/Store.h"

namespace c10d {

struct ProcessGroupNCCLOptions {
  // Of every collective without its own: Work::wait() aborts the
  // communicator and throws when it has not finished by then.
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
};

class ProcessGroupNCCL : public ProcessGroup {
 public:
  using Options = ProcessGroupNCCLOptions;

  // Throws c10::Error "ProcessGroupNCCL: no CUDA device: <reason>" where the
  // process has none. The communicator is made by the first collective, on
  // its tensors' device (rank 0 puts NCCL's unique id in `store`).
  ProcessGroupNCCL(const c10::intrusive_ptr<Store>& store, int rank, int size,
                   Options options = Options());
  // Waits for the group's streams, then destroys the communicator.
  ~ProcessGroupNCCL() override;

  const std::string getBackendName() const override { return "nccl"; }

  // Each returns at once; the operation runs on the group's stream after the
  // work already queued on the caller's current stream. Work::wait() blocks
  // until it finished (or its timeout: then the communicator is aborted and
  // wait() throws), and orders the current stream after it.
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
  // An allreduce of one element on the current device, waited for.
  c10::intrusive_ptr<Work> barrier(const BarrierOptions& opts = BarrierOptions()) override;
  // NCCL has no tags: a rank's sends to one peer match that peer's receives
  // in the order they were issued. `tag` must be 0 or is refused.
  c10::intrusive_ptr<Work> send(std::vector<at::Tensor>& tensors, int dstRank, int tag) override;
  c10::intrusive_ptr<Work> recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) override;

  const Options& options() const noexcept { return options_; }

  struct Impl;

 private:
  Options options_;
  std::unique_ptr<Impl> impl_;
};

namespace nccl {
// The checks every call makes before it touches a device (exposed for the
// tests, which run them in CI on tensors without device memory): `tensors`
// is one defined, contiguous CUDA tensor of a dtype NCCL has; `op` is a
// reduction NCCL has for it (AVG: floating types).
void check_tensors(const std::vector<at::Tensor>& tensors, const char* what);
void check_reduce(ReduceOp op, c10::ScalarType type, const char* what);
// The NCCL version this program runs with, e.g. 22809 (ncclGetVersion).
int version();
}  // namespace nccl

}  // namespace c10d
