// distributed/c10d/ProcessGroup.cc — Work's completion and the group's
// common checks.
#include "distributed/c10d/ProcessGroup.h"

#include <thread>
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

void spin_until(const std::atomic<bool>& flag) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
  while (!flag.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
}

namespace {
// Note [Rethrowing a Work's error]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The error is thrown on the group's thread and may be rethrown on several
// waiting threads. Rethrowing the stored exception_ptr itself would share
// one exception object between them, counted by libstdc++'s own (invisible
// to ThreadSanitizer) reference count, and freed on whichever thread lets
// go last. So each waiter throws its own copy; the stored object lives
// until the Work does, whose intrusive_ptr orders every access before it.
[[noreturn]] void rethrow_copy(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const c10::Error& e) {
    throw c10::Error(e);
  }
}
}  // namespace

bool Work::wait(std::chrono::milliseconds timeout) {
  spin_until(done_);
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() > 0) {
    TORCH_CHECK(cv_.wait_for(lock, timeout, [this] { return completed_; }),
                "c10d: ", name_.empty() ? std::string("the operation") : name_,
                " did not finish within the ", timeout.count(),
                " ms given to wait(); it goes on until its own timeout.");
  } else {
    cv_.wait(lock, [this] { return completed_; });
  }
  if (error_) {
    const std::exception_ptr error = error_;
    lock.unlock();
    rethrow_copy(error);  // See Note [Rethrowing a Work's error].
  }
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
    done_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

void Work::finishWithException(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (completed_) return;
    error_ = std::move(error);
    completed_ = true;
    done_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

ProcessGroup::ProcessGroup(int rank, int size) : rank_(rank), size_(size) {
  TORCH_CHECK(size >= 1, "ProcessGroup: expected a group size of at least 1, got ", size, ".");
  TORCH_CHECK(rank >= 0 && rank < size, "ProcessGroup: rank ", rank,
              " is outside the group of size ", size, "; expected 0 <= rank < size.");
}

}  // namespace c10d
