// registration/Future.cc — c10::ivalue::Future's completion, waiting and
// callbacks.
#include "registration/Future.h"

#include <utility>

namespace c10 {
namespace ivalue {

void Future::markCompleted(IValue value) {
  std::unique_lock<std::mutex> lock(mutex_);
  TORCH_CHECK(!completed_.load(std::memory_order_relaxed),
              "Future::markCompleted: the Future is already complete (with ",
              error_ ? "an error" : "a value",
              "). A Future is completed once; make a new one for a new result.");
  value_ = std::move(value);
  finish(lock);
}

void Future::setError(std::exception_ptr eptr) {
  TORCH_CHECK(eptr != nullptr, "Future::setError: the exception_ptr is null. Pass "
              "std::current_exception() from a catch block, or std::make_exception_ptr(e).");
  std::unique_lock<std::mutex> lock(mutex_);
  TORCH_CHECK(!completed_.load(std::memory_order_relaxed),
              "Future::setError: the Future is already complete (with ",
              error_ ? "an error" : "a value",
              "). A Future is completed once; use setErrorIfNeeded where several "
              "producers may fail and the first one wins.");
  error_ = std::move(eptr);
  finish(lock);
}

void Future::setErrorIfNeeded(std::exception_ptr eptr) {
  TORCH_CHECK(eptr != nullptr, "Future::setErrorIfNeeded: the exception_ptr is null. "
              "Pass std::current_exception() from a catch block, or "
              "std::make_exception_ptr(e).");
  std::unique_lock<std::mutex> lock(mutex_);
  if (completed_.load(std::memory_order_relaxed)) return;
  error_ = std::move(eptr);
  finish(lock);
}

void Future::finish(std::unique_lock<std::mutex>& lock) {
  // Relaxed loads of completed_ above are under mutex_, which orders them
  // against this store; the release half is for completed()'s lock-free
  // readers.
  completed_.store(true, std::memory_order_release);
  std::vector<std::function<void(Future&)>> callbacks = std::move(callbacks_);
  callbacks_.clear();
  lock.unlock();
  finished_cv_.notify_all();
  std::exception_ptr first;
  for (auto& callback : callbacks) {
    try {
      callback(*this);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

void Future::wait() {
  if (completed()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  finished_cv_.wait(lock, [this] { return completed_.load(std::memory_order_relaxed); });
}

void Future::waitAndThrow() {
  wait();
  if (error_) std::rethrow_exception(error_);
}

void Future::throwNotCompleted(const char* accessor) const {
  TORCH_CHECK(false, "Future::", accessor, ": the Future is not complete yet. Call wait() "
              "(or waitAndThrow()) first, or read it from a callback (addCallback, then).");
}

const IValue& Future::value() const {
  if (!completed()) throwNotCompleted("value");
  if (error_) std::rethrow_exception(error_);
  return value_;
}

const IValue& Future::constValue() const {
  if (!completed()) throwNotCompleted("constValue");
  TORCH_CHECK(!error_, "Future::constValue: the Future holds an error, not a value: ",
              tryRetrieveErrorMessage(), " Check hasError() first, or call value() to "
              "rethrow the error.");
  return value_;
}

bool Future::hasError() const { return completed() && error_ != nullptr; }

std::exception_ptr Future::exception_ptr() const {
  return completed() ? error_ : std::exception_ptr();
}

std::string Future::tryRetrieveErrorMessage() const {
  std::exception_ptr eptr = exception_ptr();
  if (!eptr) return "";
  try {
    std::rethrow_exception(eptr);
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "";
  }
}

void Future::addCallback(std::function<void(Future&)> callback) {
  TORCH_CHECK(callback != nullptr, "Future::addCallback: the callback is empty. Pass a "
              "callable taking c10::ivalue::Future&.");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!completed_.load(std::memory_order_relaxed)) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback(*this);
}

c10::intrusive_ptr<Future> Future::then(std::function<IValue(Future&)> callback) {
  TORCH_CHECK(callback != nullptr, "Future::then: the callback is empty. Pass a callable "
              "taking c10::ivalue::Future& and returning the child's c10::IValue.");
  auto child = c10::make_intrusive<Future>();
  addCallback([child, callback = std::move(callback)](Future& parent) {
    IValue result;
    try {
      result = callback(parent);
    } catch (...) {
      child->setError(std::current_exception());
      return;
    }
    child->markCompleted(std::move(result));
  });
  return child;
}

}  // namespace ivalue
}  // namespace c10
