// registration/Future.h — c10::ivalue::Future, a result that arrives later:
// an IValue, or the exception that stopped the work producing it.
//
// One thread (or callback) completes a Future once, with markCompleted(value)
// or setError(eptr); any number of threads may wait on it, read it, or attach
// callbacks that run when it completes. The autograd engine returns one from
// Engine::execute_with_graph_task (its value is the gradients, a Tensor list);
// RPC hands them out for remote calls.
//
//   auto fut = c10::make_intrusive<c10::ivalue::Future>();
//   std::thread producer([fut] { fut->markCompleted(int64_t{42}); });
//   fut->waitAndThrow();                 // blocks; rethrows a stored error
//   int64_t v = fut->value().toInt();    // 42
//   auto doubled = fut->then([](c10::ivalue::Future& f) {
//     return c10::IValue(f.value().toInt() * 2);
//   });                                  // runs at once: fut is complete
//   producer.join();
//
// Use it at boundaries between threads or processes. Code that runs to
// completion on one thread should return its value directly.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "c10/util/intrusive_ptr.h"
#include "registration/IValue.h"

namespace c10 {
namespace ivalue {

// c10::ivalue::Future
//
// Owned through c10::intrusive_ptr (make it with c10::make_intrusive).
// Thread safety: every member may be called from any thread. A Future
// completes once; a second markCompleted or setError throws (setErrorIfNeeded
// does not). The value, once complete, is never written again, so the
// reference value() returns stays valid while the Future lives.
class Future final : public c10::intrusive_ptr_target {
 public:
  Future() = default;
  Future(const Future&) = delete;
  Future& operator=(const Future&) = delete;

  // c10::ivalue::Future::markCompleted
  //
  // Stores `value`, wakes the waiters, then runs the callbacks on this
  // thread. Throws c10::Error when the Future is already complete.
  void markCompleted(IValue value);
  void markCompleted() { markCompleted(IValue()); }

  // c10::ivalue::Future::setError / setErrorIfNeeded
  //
  // Completes the Future with `eptr` (non-null) instead of a value; waiters
  // wake and the callbacks run, as for markCompleted. setError throws when
  // the Future is already complete; setErrorIfNeeded then keeps the first
  // outcome and drops `eptr` (for racing producers where the first wins).
  void setError(std::exception_ptr eptr);
  void setErrorIfNeeded(std::exception_ptr eptr);

  // c10::ivalue::Future::wait / waitAndThrow
  //
  // Block until the Future is complete. wait() returns either way, as in
  // PyTorch; waitAndThrow() then rethrows the stored error, if any.
  void wait();
  void waitAndThrow();

  // c10::ivalue::Future::value / constValue
  //
  // The value. value() rethrows the stored error; both throw c10::Error when
  // the Future is not complete yet, and constValue() when it holds an error.
  const IValue& value() const;
  const IValue& constValue() const;

  // c10::ivalue::Future::completed / hasError / exception_ptr
  //
  // completed() never blocks; when it returns true, value() and
  // exception_ptr() may be read without waiting. exception_ptr() is null
  // for a Future that is incomplete or holds a value.
  bool completed() const {
    // Acquire pairs with the release store in finish(): a thread that sees
    // true also sees the value or error written before it.
    return completed_.load(std::memory_order_acquire);
  }
  bool hasError() const;
  std::exception_ptr exception_ptr() const;

  // c10::ivalue::Future::tryRetrieveErrorMessage
  //
  // The what() text of the stored error (without backtrace for a
  // c10::Error); "" when there is none or it is not a std::exception.
  std::string tryRetrieveErrorMessage() const;

  // c10::ivalue::Future::addCallback
  //
  // Runs `callback(*this)` once the Future is complete: at once, on this
  // thread, when it already is; otherwise on the thread that completes it,
  // after the waiters have been woken, in the order the callbacks were
  // added. A callback should not throw (use then() for work that can fail);
  // if one does, the remaining callbacks still run and the first exception
  // is rethrown to whoever completed the Future (or to addCallback's
  // caller).
  void addCallback(std::function<void(Future&)> callback);

  // c10::ivalue::Future::then
  //
  // A new Future completed with `callback(*this)` once this one is
  // complete, or with the exception the callback throws. The callback runs
  // also when this Future holds an error (read it with value(), which
  // rethrows it, so an error passes on to the child unless handled).
  // PyTorch's then() also takes the child's static type; Ember's IValue
  // carries its kind at run time instead.
  c10::intrusive_ptr<Future> then(std::function<IValue(Future&)> callback);

 private:
  // Completes with the value or error already stored by the caller under
  // mutex_, then wakes the waiters and runs the callbacks. `lock` is held on
  // entry and released inside.
  void finish(std::unique_lock<std::mutex>& lock);
  [[noreturn]] void throwNotCompleted(const char* accessor) const;

  mutable std::mutex mutex_;  // guards everything below but completed_
  std::condition_variable finished_cv_;
  // Written once, under mutex_, before completed_ is set; read-only after.
  IValue value_;
  std::exception_ptr error_;
  std::vector<std::function<void(Future&)>> callbacks_;
  // Set (release) under mutex_ after value_/error_; see completed().
  std::atomic<bool> completed_{false};
};

}  // namespace ivalue
}  // namespace c10
