// c10::ivalue::Future: completion once, waiting across threads, errors,
// callbacks and then().
#include "registration/Future.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using c10::ivalue::Future;
using ember_test::errorOf;

TEST(Future, MarkCompletedWakesAWaiterOnAnotherThread) {
  auto fut = c10::make_intrusive<Future>();
  EXPECT_FALSE(fut->completed());
  std::thread producer([fut] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    fut->markCompleted(int64_t{42});
  });
  fut->waitAndThrow();
  EXPECT_TRUE(fut->completed());
  EXPECT_FALSE(fut->hasError());
  EXPECT_EQ(fut->value().toInt(), 42);
  EXPECT_EQ(fut->constValue().toInt(), 42);
  EXPECT_EQ(fut->exception_ptr(), nullptr);
  EXPECT_EQ(fut->tryRetrieveErrorMessage(), "");
  producer.join();
}

TEST(Future, AnErrorIsRethrownByWaitAndThrowAndValueButNotByWait) {
  auto fut = c10::make_intrusive<Future>();
  std::thread producer([fut] {
    try {
      TORCH_CHECK(false, "remote: the worker failed.");
    } catch (...) {
      fut->setError(std::current_exception());
    }
  });
  fut->wait();  // returns: wait() reports nothing
  producer.join();
  EXPECT_TRUE(fut->hasError());
  EXPECT_THAT(errorOf([&] { fut->waitAndThrow(); }), HasSubstr("remote: the worker failed."));
  EXPECT_THAT(errorOf([&] { (void)fut->value(); }), HasSubstr("remote: the worker failed."));
  EXPECT_THAT(errorOf([&] { (void)fut->constValue(); }),
              HasSubstr("Future::constValue: the Future holds an error, not a value: remote: "
                        "the worker failed. Check hasError() first"));
  EXPECT_EQ(fut->tryRetrieveErrorMessage(), "remote: the worker failed.");
}

TEST(Future, AStandardExceptionKeepsItsTypeAndMessage) {
  auto fut = c10::make_intrusive<Future>();
  fut->setError(std::make_exception_ptr(std::out_of_range("index 7")));
  EXPECT_THROW(fut->waitAndThrow(), std::out_of_range);
  EXPECT_EQ(fut->tryRetrieveErrorMessage(), "index 7");
}

TEST(Future, CompletesOnlyOnce) {
  auto fut = c10::make_intrusive<Future>();
  fut->markCompleted(true);
  EXPECT_THAT(errorOf([&] { fut->markCompleted(false); }),
              HasSubstr("Future::markCompleted: the Future is already complete (with a "
                        "value). A Future is completed once"));
  EXPECT_THAT(errorOf([&] { fut->setError(std::make_exception_ptr(std::runtime_error("x"))); }),
              HasSubstr("Future::setError: the Future is already complete (with a value)."));
  fut->setErrorIfNeeded(std::make_exception_ptr(std::runtime_error("late")));
  EXPECT_FALSE(fut->hasError());
  EXPECT_TRUE(fut->value().toBool());
}

TEST(Future, SetErrorIfNeededKeepsTheFirstError) {
  auto fut = c10::make_intrusive<Future>();
  fut->setErrorIfNeeded(std::make_exception_ptr(std::runtime_error("first")));
  fut->setErrorIfNeeded(std::make_exception_ptr(std::runtime_error("second")));
  EXPECT_EQ(fut->tryRetrieveErrorMessage(), "first");
  EXPECT_THAT(errorOf([&] { fut->setError(nullptr); }),
              HasSubstr("Future::setError: the exception_ptr is null."));
}

TEST(Future, ReadingBeforeCompletionIsRefused) {
  auto fut = c10::make_intrusive<Future>();
  EXPECT_THAT(errorOf([&] { (void)fut->value(); }),
              HasSubstr("Future::value: the Future is not complete yet. Call wait()"));
  EXPECT_FALSE(fut->hasError());
  EXPECT_EQ(fut->exception_ptr(), nullptr);
}

TEST(Future, CallbacksRunOnCompletionInOrderOrAtOnceWhenComplete) {
  auto fut = c10::make_intrusive<Future>();
  std::vector<int> order;
  fut->addCallback([&](Future& f) { order.push_back(static_cast<int>(f.value().toInt())); });
  fut->addCallback([&](Future&) { order.push_back(2); });
  EXPECT_TRUE(order.empty());
  fut->markCompleted(int64_t{1});
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  fut->addCallback([&](Future&) { order.push_back(3); });  // already complete: runs now
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(Future, AThrowingCallbackDoesNotStopTheOthers) {
  auto fut = c10::make_intrusive<Future>();
  int ran = 0;
  fut->addCallback([](Future&) { TORCH_CHECK(false, "callback failed."); });
  fut->addCallback([&](Future&) { ++ran; });
  EXPECT_THAT(errorOf([&] { fut->markCompleted(); }), HasSubstr("callback failed."));
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(fut->completed());
  EXPECT_TRUE(fut->value().isNone());
}

TEST(Future, ThenPassesValuesOnAndErrorsThrough) {
  auto fut = c10::make_intrusive<Future>();
  auto doubled = fut->then([](Future& f) { return c10::IValue(f.value().toInt() * 2); });
  auto failed = fut->then([](Future&) -> c10::IValue { TORCH_CHECK(false, "then: no."); });
  EXPECT_FALSE(doubled->completed());
  fut->markCompleted(int64_t{21});
  EXPECT_EQ(doubled->value().toInt(), 42);
  EXPECT_EQ(failed->tryRetrieveErrorMessage(), "then: no.");

  auto bad = c10::make_intrusive<Future>();
  auto child = bad->then([](Future& f) { return f.value(); });  // value() rethrows
  bad->setError(std::make_exception_ptr(std::runtime_error("upstream")));
  EXPECT_EQ(child->tryRetrieveErrorMessage(), "upstream");
}

TEST(Future, ManyThreadsWaitAndAddCallbacksWhileAnotherCompletes) {
  for (int round = 0; round < 20; ++round) {
    auto fut = c10::make_intrusive<Future>();
    std::atomic<int> callbacks{0};
    std::atomic<int64_t> seen{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, fut] {
        fut->addCallback([&](Future& f) { callbacks.fetch_add(1); (void)f.value(); });
        fut->wait();
        seen.fetch_add(fut->value().toInt());
      });
    }
    std::thread producer([fut] { fut->markCompleted(int64_t{5}); });
    producer.join();
    for (auto& t : threads) t.join();
    EXPECT_EQ(callbacks.load(), 4);  // each exactly once, whichever thread ran it
    EXPECT_EQ(seen.load(), 20);
  }
}

}  // namespace
