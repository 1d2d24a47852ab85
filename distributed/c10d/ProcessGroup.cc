// distributed/c10d/ProcessGroup.cc — Work's completion and the group's
// common checks.
#include "distributed/c10d/ProcessGroup.h"

#include <utility>

#include "c10/util/Exception.h"

namespace c10d {

const char* toString(ReduceOp op) {
  switch (static_cast<ReduceOp::RedOpType>(op)) {
    case ReduceOp::SUM:
      return "SUM";
    case ReduceOp::AVG:
      return "AVG";
    case ReduceOp::PRODUCT:
      return "PRODUCT";
    case ReduceOp::MIN:
      return "MIN";
    case ReduceOp::MAX:
      return "MAX";
  }
  return "UNKNOWN";
}

bool Work::isCompleted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Work::isSuccess() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

bool Work::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() > 0) {
    TORCH_CHECK(cv_.wait_for(lock, timeout, [this] { return completed_; }),
                "c10d: ", name_.empty() ? std::string("the operation") : name_,
                " did not finish within the ", timeout.count(),
                " ms given to wait(); it goes on until its own timeout.");
  } else {
    cv_.wait(lock, [this] { return completed_; });
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

std::vector<at::Tensor> Work::result() {
  std::lock_guard<std::mutex> lock(mutex_);
  return outputs_;
}

void Work::finish(std::vector<at::Tensor> outputs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    outputs_ = std::move(outputs);
    completed_ = true;
  }
  cv_.notify_all();
}

void Work::finishWithException(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    error_ = std::move(error);
    completed_ = true;
  }
  cv_.notify_all();
}

ProcessGroup::ProcessGroup(int rank, int size) : rank_(rank), size_(size) {
  TORCH_CHECK(size >= 1, "ProcessGroup: expected a group size of at least 1, got ", size, ".");
  TORCH_CHECK(rank >= 0 && rank < size, "ProcessGroup: rank ", rank,
              " is outside the group of size ", size, "; expected 0 <= rank < size.");
}

}  // namespace c10d
