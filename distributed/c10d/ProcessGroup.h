// distributed/c10d/ProcessGroup.h — c10d::ProcessGroup: the collectives a
// group of processes runs together (PyTorch's c10d API), each returning a
// Work to wait on. ProcessGroupGloo.h implements it on Gloo.
//
//   std::vector<at::Tensor> ts = {grad};
//   c10::intrusive_ptr<c10d::Work> work = pg->allreduce(ts);   // starts it
//   work->wait();                                              // throws its error
//
// Every rank must issue the same collectives in the same order. A
// collective's timeout (its options' `timeout`, else the group's) ends it
// with an error instead of a hang when a peer is gone or late.
#pragma once

#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/intrusive_ptr.h"

namespace c10d {

// A timeout left to the group's default.
constexpr std::chrono::milliseconds kUnsetTimeout = std::chrono::milliseconds(-1);
// Work::wait without a limit of its own.
constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

// c10d::ReduceOp — how allreduce and reduce_scatter combine the ranks'
// values. AVG divides the sum by the group's size (floating types only).
struct ReduceOp {
  enum RedOpType : uint8_t { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4 };
  ReduceOp(RedOpType op = SUM) : op_(op) {}  // NOLINT: implicit, as PyTorch's
  operator RedOpType() const { return op_; }
  RedOpType op_;
};
const char* toString(ReduceOp op);

struct AllreduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BroadcastOptions {
  int64_t rootRank = 0;
  int64_t rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};
struct BarrierOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

// Note [Spinning before sleeping]
// How long a thread that waits for a collective another thread runs
// (Work::wait) polls before it sleeps on its condition variable. The Gloo
// group's worker does not poll for work (See Note [Running a collective on
// its waiter] in ProcessGroupGloo.cc).
constexpr int kSpinMicroseconds = 200;
void spin_until(const std::atomic<bool>& flag);

// c10d::Work — one collective or point-to-point operation in flight.
class Work : public c10::intrusive_ptr_target {
 public:
  explicit Work(std::string name = std::string()) : name_(std::move(name)) {}
  ~Work() override = default;

  virtual bool isCompleted();
  virtual bool isSuccess();
  virtual std::exception_ptr exception();

  // Blocks until the operation finishes and rethrows its error, if any.
  // With a timeout (> 0): throws c10::Error if it has not finished by then
  // (the operation itself goes on until its own timeout). Returns true.
  virtual bool wait(std::chrono::milliseconds timeout = kNoTimeout);

  // The output tensors (the inputs, for in-place collectives).
  std::vector<at::Tensor> result();

  // For implementations: ends the operation (once).
  void finish(std::vector<at::Tensor> outputs = {});
  void finishWithException(std::exception_ptr error);

 protected:
  std::string name_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool completed_ = false;
  std::atomic<bool> done_{false};  // completed_, readable without the lock
  std::exception_ptr error_;
  std::vector<at::Tensor> outputs_;
};

// c10d::ProcessGroup
class ProcessGroup : public c10::intrusive_ptr_target {
 public:
  ProcessGroup(int rank, int size);
  ~ProcessGroup() override = default;

  int getRank() const noexcept { return rank_; }
  int getSize() const noexcept { return size_; }
  virtual const std::string getBackendName() const = 0;

  // Combines `tensors` (one per rank, same sizes and dtype everywhere) with
  // the reduction, in place.
  virtual c10::intrusive_ptr<Work> allreduce(std::vector<at::Tensor>& tensors,
                                             const AllreduceOptions& opts = AllreduceOptions()) = 0;
  // Copies rootRank's tensors into everyone's, in place.
  virtual c10::intrusive_ptr<Work> broadcast(std::vector<at::Tensor>& tensors,
                                             const BroadcastOptions& opts = BroadcastOptions()) = 0;
  // outputTensors[0][r] receives rank r's inputTensors[0].
  virtual c10::intrusive_ptr<Work> allgather(std::vector<std::vector<at::Tensor>>& outputTensors,
                                             std::vector<at::Tensor>& inputTensors,
                                             const AllgatherOptions& opts = AllgatherOptions()) = 0;
  // outputTensors[0] receives the reduction over ranks of their
  // inputTensors[0][rank].
  virtual c10::intrusive_ptr<Work> reduce_scatter(
      std::vector<at::Tensor>& outputTensors, std::vector<std::vector<at::Tensor>>& inputTensors,
      const ReduceScatterOptions& opts = ReduceScatterOptions()) = 0;
  virtual c10::intrusive_ptr<Work> barrier(const BarrierOptions& opts = BarrierOptions()) = 0;
  // Point to point: the receiver names the sender and the same tag.
  virtual c10::intrusive_ptr<Work> send(std::vector<at::Tensor>& tensors, int dstRank,
                                        int tag) = 0;
  virtual c10::intrusive_ptr<Work> recv(std::vector<at::Tensor>& tensors, int srcRank,
                                        int tag) = 0;

 protected:
  const int rank_;
  const int size_;
};

}  // namespace c10d
