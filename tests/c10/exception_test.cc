// tests/c10/exception_test.cc — proves the behaviour of c10/util/Exception.h:
// the TORCH_CHECK family, TORCH_INTERNAL_ASSERT, c10::Error and its
// subclasses, and warnings (TORCH_WARN, TORCH_WARN_ONCE, per-thread
// handlers).
#include "c10/util/Exception.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A condition written with a macro, to see that the message quotes the
// source text rather than its expansion.
#define EMBER_TEST_LIMIT 42

// Records every warning it receives.
class RecordingHandler : public c10::WarningHandler {
 public:
  void process(const c10::Warning& warning) override {
    warnings.push_back(warning);
  }
  std::vector<c10::Warning> warnings;
};

// Runs `fn`, which must throw exactly `E` (not a subclass of it, not a
// base), and returns the exception. Fails the test otherwise.
template <typename E, typename Fn>
E expect_throws_exactly(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    EXPECT_EQ(typeid(e), typeid(E))
        << "threw " << typeid(e).name() << ", expected " << typeid(E).name();
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << typeid(e).name() << ": " << e.what();
    throw;
  }
  ADD_FAILURE() << "did not throw";
  return E(c10::SourceLocation{"", "", 0}, "");
}

// Fails a check in a function with a known name, reporting the line.
void check_positive(int value, uint32_t* line) {
  *line = __LINE__ + 1;
  TORCH_CHECK(value > 0, "check_positive: got ", value);
}

// ---------------------------------------------------------------------------
// TORCH_CHECK

TEST(TorchCheck, PassingCheckDoesNotThrow) {
  int x = 3;
  EXPECT_NO_THROW(TORCH_CHECK(x == 3, "unreachable"));
  EXPECT_NO_THROW(TORCH_CHECK(x > 0));
  EXPECT_NO_THROW(TORCH_CHECK_VALUE(true, "unreachable"));
  EXPECT_NO_THROW(TORCH_CHECK_INDEX(true, "unreachable"));
  EXPECT_NO_THROW(TORCH_CHECK_TYPE(true, "unreachable"));
  EXPECT_NO_THROW(TORCH_CHECK_NOT_IMPLEMENTED(true, "unreachable"));
}

TEST(TorchCheck, MessageConcatenatesStringParts) {
  auto e = expect_throws_exactly<c10::Error>([] {
    TORCH_CHECK(false, "add: ", std::string("shapes"), " differ", '.');
  });
  EXPECT_EQ(e.msg(), "add: shapes differ.");
}

TEST(TorchCheck, MessageConcatenatesNumberParts) {
  auto e = expect_throws_exactly<c10::Error>(
      [] { TORCH_CHECK(false, 1, 2.5, -3, 4u, int64_t{-9000000000}); });
  EXPECT_EQ(e.msg(), "12.5-34-9000000000");
}

TEST(TorchCheck, MessageConcatenatesMixedParts) {
  const int dim = 3;
  const int ndim = 2;
  auto e = expect_throws_exactly<c10::Error>([&] {
    TORCH_CHECK(dim < ndim, "select: dim ", dim, " is out of range for a ",
                ndim, "-d tensor; pass a dim in [0, ", ndim, ").");
  });
  EXPECT_EQ(e.msg(),
            "select: dim 3 is out of range for a 2-d tensor; pass a dim in "
            "[0, 2).");
}

TEST(TorchCheck, WithoutPartsMessageNamesTheCondition) {
  int x = 1;
  auto e = expect_throws_exactly<c10::Error>([&] { TORCH_CHECK(x > 3); });
  EXPECT_EQ(e.msg(), "Expected x > 3 to be true, but got false.");
}

TEST(TorchCheck, ConditionTextIsTheSourceNotTheMacroExpansion) {
  int x = 50;
  auto e = expect_throws_exactly<c10::Error>(
      [&] { TORCH_CHECK(x < EMBER_TEST_LIMIT); });
  EXPECT_EQ(e.msg(),
            "Expected x < EMBER_TEST_LIMIT to be true, but got false.");
}

TEST(TorchCheck, MessagePartsAreNotEvaluatedWhenCheckPasses) {
  int calls = 0;
  auto part = [&calls] {
    ++calls;
    return "part";
  };
  for (int i = 0; i < 10; ++i) {
    TORCH_CHECK(i >= 0, "never formatted: ", part());
    TORCH_CHECK_VALUE(true, part());
    TORCH_CHECK_INDEX(true, part());
    TORCH_CHECK_TYPE(true, part());
    TORCH_CHECK_NOT_IMPLEMENTED(true, part());
    TORCH_INTERNAL_ASSERT(true, part());
  }
  EXPECT_EQ(calls, 0);
}

TEST(TorchCheck, MessagePartsAreEvaluatedOnceWhenCheckFails) {
  int calls = 0;
  auto part = [&calls] {
    ++calls;
    return "part";
  };
  EXPECT_THROW(TORCH_CHECK(false, part()), c10::Error);
  EXPECT_EQ(calls, 1);
}

TEST(TorchCheck, ConditionIsEvaluatedExactlyOnce) {
  int evaluations = 0;
  TORCH_CHECK(++evaluations > 0, "unreachable");
  EXPECT_EQ(evaluations, 1);
  EXPECT_THROW(TORCH_CHECK(++evaluations < 0), c10::Error);
  EXPECT_EQ(evaluations, 2);
}

TEST(TorchCheck, IsOneStatementInsideIfElse) {
  // Without braces the macro must be exactly one statement: it may neither
  // swallow the `else` nor end the `if` early (which would not compile).
  int branch = 0;
  const bool take_first = false;
  if (take_first)
    TORCH_CHECK(false, "unreachable");
  else
    branch = 2;
  EXPECT_EQ(branch, 2);
  if (!take_first)
    TORCH_INTERNAL_ASSERT(branch == 2, "unreachable");
  else
    branch = 3;
  EXPECT_EQ(branch, 2);
}

// ---------------------------------------------------------------------------
// Subclasses

TEST(TorchCheckKinds, PlainCheckThrowsExactlyError) {
  expect_throws_exactly<c10::Error>([] { TORCH_CHECK(false, "plain"); });
}

TEST(TorchCheckKinds, ValueCheckThrowsValueError) {
  auto e = expect_throws_exactly<c10::ValueError>(
      [] { TORCH_CHECK_VALUE(false, "bad value ", 7); });
  EXPECT_EQ(e.msg(), "bad value 7");
  EXPECT_THROW(TORCH_CHECK_VALUE(false, "x"), c10::Error);
}

TEST(TorchCheckKinds, IndexCheckThrowsIndexError) {
  auto e = expect_throws_exactly<c10::IndexError>(
      [] { TORCH_CHECK_INDEX(false, "index ", 5, " out of range"); });
  EXPECT_EQ(e.msg(), "index 5 out of range");
  EXPECT_THROW(TORCH_CHECK_INDEX(false, "x"), c10::Error);
}

TEST(TorchCheckKinds, TypeCheckThrowsTypeError) {
  auto e = expect_throws_exactly<c10::TypeError>(
      [] { TORCH_CHECK_TYPE(false, "expected Float"); });
  EXPECT_EQ(e.msg(), "expected Float");
  EXPECT_THROW(TORCH_CHECK_TYPE(false, "x"), c10::Error);
}

TEST(TorchCheckKinds, NotImplementedCheckThrowsNotImplementedError) {
  auto e = expect_throws_exactly<c10::NotImplementedError>(
      [] { TORCH_CHECK_NOT_IMPLEMENTED(false, "no kernel"); });
  EXPECT_EQ(e.msg(), "no kernel");
  EXPECT_THROW(TORCH_CHECK_NOT_IMPLEMENTED(false, "x"), c10::Error);
}

// TORCH_CHECK_WITH names the class, as PyTorch's; passing is silent and the
// parts are not evaluated.
TEST(TorchCheckKinds, CheckWithThrowsTheNamedClass) {
  auto oom = expect_throws_exactly<c10::OutOfMemoryError>(
      [] { TORCH_CHECK_WITH(OutOfMemoryError, false, "tried to allocate ", 30, " MiB"); });
  EXPECT_EQ(oom.msg(), "tried to allocate 30 MiB");
  auto value = expect_throws_exactly<c10::ValueError>(
      [] { TORCH_CHECK_WITH(ValueError, 1 + 1 == 3, "arithmetic"); });
  EXPECT_EQ(value.msg(), "arithmetic");
  auto bare = expect_throws_exactly<c10::Error>([] { TORCH_CHECK_WITH(Error, 2 < 1); });
  EXPECT_EQ(bare.msg(), "Expected 2 < 1 to be true, but got false.");
  int evaluated = 0;
  auto part = [&] { return ++evaluated; };
  EXPECT_NO_THROW(TORCH_CHECK_WITH(OutOfMemoryError, true, part()));
  EXPECT_EQ(evaluated, 0);
  EXPECT_THROW(TORCH_CHECK_WITH(OutOfMemoryError, false, "x"), c10::Error);
  EXPECT_THROW(C10_THROW_ERROR(OutOfMemoryError, "y"), c10::OutOfMemoryError);
}

TEST(TorchCheckKinds, SubclassesWithoutPartsNameTheCondition) {
  const int n = 0;
  auto v = expect_throws_exactly<c10::ValueError>(
      [&] { TORCH_CHECK_VALUE(n != 0); });
  EXPECT_EQ(v.msg(), "Expected n != 0 to be true, but got false.");
  auto i =
      expect_throws_exactly<c10::IndexError>([&] { TORCH_CHECK_INDEX(n > 1); });
  EXPECT_EQ(i.msg(), "Expected n > 1 to be true, but got false.");
  auto t =
      expect_throws_exactly<c10::TypeError>([&] { TORCH_CHECK_TYPE(n == 2); });
  EXPECT_EQ(t.msg(), "Expected n == 2 to be true, but got false.");
  auto ni = expect_throws_exactly<c10::NotImplementedError>(
      [&] { TORCH_CHECK_NOT_IMPLEMENTED(n == 3); });
  EXPECT_EQ(ni.msg(), "Expected n == 3 to be true, but got false.");
}

TEST(TorchCheckKinds, EveryKindIsCatchableAsStdException) {
  try {
    TORCH_CHECK_INDEX(false, "as std::exception");
    FAIL() << "did not throw";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("as std::exception"));
  }
}

// ---------------------------------------------------------------------------
// C10_THROW_ERROR

TEST(ThrowError, ThrowsTheNamedKindWithTheParts) {
  auto e = expect_throws_exactly<c10::Error>(
      [] { C10_THROW_ERROR(Error, "plain ", 1); });
  EXPECT_EQ(e.msg(), "plain 1");
  auto v = expect_throws_exactly<c10::ValueError>(
      [] { C10_THROW_ERROR(ValueError, "value ", 2); });
  EXPECT_EQ(v.msg(), "value 2");
  expect_throws_exactly<c10::IndexError>(
      [] { C10_THROW_ERROR(IndexError, "i"); });
  expect_throws_exactly<c10::TypeError>(
      [] { C10_THROW_ERROR(TypeError, "t"); });
  expect_throws_exactly<c10::NotImplementedError>(
      [] { C10_THROW_ERROR(NotImplementedError, "n"); });
}

TEST(ThrowError, RecordsItsLocation) {
  uint32_t line = 0;
  try {
    line = __LINE__ + 1;
    C10_THROW_ERROR(Error, "here");
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.location().line, line);
    EXPECT_STREQ(e.location().file, __FILE__);
  }
  EXPECT_NE(line, 0u);
}

// ---------------------------------------------------------------------------
// c10::Error: what(), location(), add_context

TEST(Error, WhatContainsMessageAndFileLine) {
  uint32_t line = 0;
  try {
    check_positive(-4, &line);
    FAIL() << "did not throw";
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, StartsWith("check_positive: got -4"));
    EXPECT_THAT(what,
                HasSubstr(std::string(__FILE__) + ":" + std::to_string(line)));
    EXPECT_THAT(what, HasSubstr("check_positive"));
  }
}

TEST(Error, WhatWithoutBacktraceIsTheMessageAlone) {
  uint32_t line = 0;
  try {
    check_positive(0, &line);
    FAIL() << "did not throw";
  } catch (const c10::Error& e) {
    EXPECT_STREQ(e.what_without_backtrace(), "check_positive: got 0");
    EXPECT_EQ(e.msg(), "check_positive: got 0");
    EXPECT_THAT(e.what_without_backtrace(), Not(HasSubstr(__FILE__)));
  }
}

TEST(Error, LocationNamesFunctionFileAndLine) {
  uint32_t line = 0;
  try {
    check_positive(-1, &line);
    FAIL() << "did not throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.location().line, line);
    EXPECT_STREQ(e.location().file, __FILE__);
    EXPECT_STREQ(e.location().function, "check_positive");
  }
}

TEST(Error, LocationLineIsTheLineOfTheCheck) {
  uint32_t line = 0;
  try {
    line = __LINE__ + 1;
    TORCH_CHECK_VALUE(line == 0, "on purpose");
  } catch (const c10::ValueError& e) {
    EXPECT_EQ(e.location().line, line);
  }
  EXPECT_NE(line, 0u);
}

TEST(Error, SourceLocationStreamsFunctionFileAndLine) {
  std::ostringstream os;
  os << c10::SourceLocation{"fn", "dir/file.cc", 12};
  EXPECT_EQ(os.str(), "fn at dir/file.cc:12");
}

TEST(Error, ConstructedDirectlyKeepsMessageAndLocation) {
  c10::Error e(c10::SourceLocation{"f", "g.cc", 7}, "direct");
  EXPECT_EQ(e.msg(), "direct");
  EXPECT_STREQ(e.what_without_backtrace(), "direct");
  EXPECT_THAT(e.what(), StartsWith("direct"));
  EXPECT_THAT(e.what(), HasSubstr("g.cc:7"));
  EXPECT_EQ(e.location().line, 7u);
}

TEST(Error, AddContextPrependsToMessageAndWhat) {
  c10::Error e(c10::SourceLocation{"f", "g.cc", 7}, "file not found");
  e.add_context("while loading plugin libfoo.so: ");
  EXPECT_EQ(e.msg(), "while loading plugin libfoo.so: file not found");
  EXPECT_STREQ(e.what_without_backtrace(),
               "while loading plugin libfoo.so: file not found");
  EXPECT_THAT(e.what(),
              StartsWith("while loading plugin libfoo.so: file not found"));
  EXPECT_THAT(e.what(), HasSubstr("g.cc:7"));
  // The location is where the error was raised, not where context was added.
  EXPECT_EQ(e.location().line, 7u);
  e.add_context("outer: ");
  EXPECT_EQ(e.msg(), "outer: while loading plugin libfoo.so: file not found");
}

TEST(Error, AddContextSurvivesRethrowAndKeepsTheKind) {
  try {
    try {
      TORCH_CHECK_INDEX(false, "index 9 out of range");
    } catch (c10::Error& e) {
      e.add_context("in layer 3: ");
      throw;
    }
  } catch (const c10::IndexError& e) {
    EXPECT_EQ(e.msg(), "in layer 3: index 9 out of range");
    return;
  }
  FAIL() << "IndexError was not rethrown";
}

// ---------------------------------------------------------------------------
// TORCH_INTERNAL_ASSERT

TEST(InternalAssert, PassingAssertDoesNotThrow) {
  EXPECT_NO_THROW(TORCH_INTERNAL_ASSERT(1 + 1 == 2));
  EXPECT_NO_THROW(TORCH_INTERNAL_ASSERT(true, "unreachable"));
}

TEST(InternalAssert, FailureNamesConditionAndAsksForABugReport) {
  int refcount = -1;
  uint32_t line = 0;
  try {
    line = __LINE__ + 1;
    TORCH_INTERNAL_ASSERT(refcount >= 0);
    FAIL() << "did not throw";
  } catch (const c10::Error& e) {
    EXPECT_EQ(typeid(e), typeid(c10::Error));
    EXPECT_THAT(e.msg(), HasSubstr("INTERNAL ASSERT FAILED"));
    EXPECT_THAT(e.msg(), HasSubstr("refcount >= 0"));
    EXPECT_THAT(e.msg(), HasSubstr("report a bug"));
    EXPECT_THAT(e.msg(),
                HasSubstr(std::string(__FILE__) + ":" + std::to_string(line)));
    EXPECT_EQ(e.location().line, line);
  }
}

TEST(InternalAssert, FailureIncludesTheParts) {
  const int64_t refcount = -2;
  try {
    TORCH_INTERNAL_ASSERT(refcount >= 0, "refcount is ", refcount,
                          " after release");
    FAIL() << "did not throw";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("INTERNAL ASSERT FAILED"));
    EXPECT_THAT(e.msg(), HasSubstr("refcount >= 0"));
    EXPECT_THAT(e.msg(), EndsWith("refcount is -2 after release"));
  }
}

TEST(InternalAssert, ConditionTextIsTheSourceNotTheMacroExpansion) {
  int x = 50;
  try {
    TORCH_INTERNAL_ASSERT(x < EMBER_TEST_LIMIT);
    FAIL() << "did not throw";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("x < EMBER_TEST_LIMIT"));
  }
}

TEST(InternalAssert, DebugOnlyAssertFollowsNdebug) {
  int evaluations = 0;
#ifdef NDEBUG
  EXPECT_NO_THROW(TORCH_INTERNAL_ASSERT_DEBUG_ONLY(++evaluations < 0, "x"));
  EXPECT_EQ(evaluations, 0) << "the condition must not run in NDEBUG builds";
#else
  EXPECT_THROW(TORCH_INTERNAL_ASSERT_DEBUG_ONLY(++evaluations < 0, "x"),
               c10::Error);
  EXPECT_EQ(evaluations, 1);
  EXPECT_NO_THROW(TORCH_INTERNAL_ASSERT_DEBUG_ONLY(true));
#endif
}

// ---------------------------------------------------------------------------
// Warnings

TEST(Warning, ReachesTheHandlerInstalledByTheGuard) {
  RecordingHandler handler;
  c10::WarningUtils::WarningHandlerGuard guard(&handler);
  const uint32_t line = __LINE__ + 1;
  TORCH_WARN("to: copying a ", 16, "-byte tensor to itself is a no-op.");
  ASSERT_EQ(handler.warnings.size(), 1u);
  const c10::Warning& w = handler.warnings[0];
  EXPECT_EQ(w.msg(), "to: copying a 16-byte tensor to itself is a no-op.");
  EXPECT_EQ(w.source_location().line, line);
  EXPECT_STREQ(w.source_location().file, __FILE__);
  EXPECT_STREQ(w.source_location().function, "TestBody");
}

TEST(Warning, GuardInstallsAndRestoresThePreviousHandler) {
  c10::WarningHandler* const original =
      c10::WarningUtils::get_warning_handler();
  ASSERT_NE(original, nullptr);
  RecordingHandler outer;
  RecordingHandler inner;
  {
    c10::WarningUtils::WarningHandlerGuard outer_guard(&outer);
    EXPECT_EQ(c10::WarningUtils::get_warning_handler(), &outer);
    {
      c10::WarningUtils::WarningHandlerGuard inner_guard(&inner);
      EXPECT_EQ(c10::WarningUtils::get_warning_handler(), &inner);
      TORCH_WARN("to inner");
    }
    EXPECT_EQ(c10::WarningUtils::get_warning_handler(), &outer);
    TORCH_WARN("to outer");
  }
  EXPECT_EQ(c10::WarningUtils::get_warning_handler(), original);
  ASSERT_EQ(inner.warnings.size(), 1u);
  EXPECT_EQ(inner.warnings[0].msg(), "to inner");
  ASSERT_EQ(outer.warnings.size(), 1u);
  EXPECT_EQ(outer.warnings[0].msg(), "to outer");
}

TEST(Warning, SettingNullRestoresTheDefaultHandler) {
  c10::WarningHandler* const original =
      c10::WarningUtils::get_warning_handler();
  RecordingHandler handler;
  c10::WarningUtils::set_warning_handler(&handler);
  EXPECT_EQ(c10::WarningUtils::get_warning_handler(), &handler);
  c10::WarningUtils::set_warning_handler(nullptr);
  EXPECT_EQ(c10::WarningUtils::get_warning_handler(), original);
  EXPECT_NE(c10::WarningUtils::get_warning_handler(), nullptr);
}

TEST(Warning, DefaultHandlerPrintsMessageAndLocationToStderr) {
  testing::internal::CaptureStderr();
  const uint32_t line = __LINE__ + 1;
  TORCH_WARN("default handler ", 42);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, StartsWith("Warning: default handler 42 ("));
  EXPECT_THAT(err,
              HasSubstr(std::string(__FILE__) + ":" + std::to_string(line)));
}

TEST(Warning, HandlerIsPerThread) {
  RecordingHandler mine;
  c10::WarningUtils::WarningHandlerGuard guard(&mine);

  // A thread with its own handler: its warnings go there, not to ours.
  RecordingHandler theirs;
  c10::WarningHandler* seen_by_thread = nullptr;
  std::thread with_handler([&] {
    c10::WarningUtils::WarningHandlerGuard thread_guard(&theirs);
    seen_by_thread = c10::WarningUtils::get_warning_handler();
    TORCH_WARN("from the other thread");
  });
  with_handler.join();
  EXPECT_EQ(seen_by_thread, &theirs);
  ASSERT_EQ(theirs.warnings.size(), 1u);
  EXPECT_EQ(theirs.warnings[0].msg(), "from the other thread");

  // A thread without a handler uses the default one, not ours.
  c10::WarningHandler* default_seen = nullptr;
  testing::internal::CaptureStderr();
  std::thread without_handler([&] {
    default_seen = c10::WarningUtils::get_warning_handler();
    TORCH_WARN("to the default handler");
  });
  without_handler.join();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(default_seen, &mine);
  EXPECT_THAT(err, HasSubstr("to the default handler"));

  EXPECT_TRUE(mine.warnings.empty());
  EXPECT_EQ(c10::WarningUtils::get_warning_handler(), &mine);
}

// Each of these has its own TORCH_WARN_ONCE call site, used by one test only.
void warn_once_in_loop_site(int i) { TORCH_WARN_ONCE("loop site, i = ", i); }
void warn_once_site_a() { TORCH_WARN_ONCE("site a"); }
void warn_once_site_b() { TORCH_WARN_ONCE("site b"); }
void warn_once_threads_site() { TORCH_WARN_ONCE("threads site"); }
void warn_once_counted_site(int* calls) {
  TORCH_WARN_ONCE("counted ", ++*calls);
}

TEST(WarnOnce, FiresOnceAcrossALoop) {
  RecordingHandler handler;
  c10::WarningUtils::WarningHandlerGuard guard(&handler);
  for (int i = 0; i < 5; ++i) warn_once_in_loop_site(i);
  ASSERT_EQ(handler.warnings.size(), 1u);
  EXPECT_EQ(handler.warnings[0].msg(), "loop site, i = 0");
  // The location names the function that raised it.
  EXPECT_STREQ(handler.warnings[0].source_location().function,
               "warn_once_in_loop_site");
  EXPECT_STREQ(handler.warnings[0].source_location().file, __FILE__);
}

TEST(WarnOnce, EachCallSiteFiresOnce) {
  RecordingHandler handler;
  c10::WarningUtils::WarningHandlerGuard guard(&handler);
  for (int i = 0; i < 3; ++i) {
    warn_once_site_a();
    warn_once_site_b();
  }
  ASSERT_EQ(handler.warnings.size(), 2u);
  EXPECT_EQ(handler.warnings[0].msg(), "site a");
  EXPECT_EQ(handler.warnings[1].msg(), "site b");
}

TEST(WarnOnce, PartsAreNotEvaluatedAfterTheFirstTime) {
  RecordingHandler handler;
  c10::WarningUtils::WarningHandlerGuard guard(&handler);
  int calls = 0;
  for (int i = 0; i < 4; ++i) warn_once_counted_site(&calls);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(handler.warnings.size(), 1u);
  EXPECT_EQ(handler.warnings[0].msg(), "counted 1");
}

TEST(WarnOnce, FiresOnceAcrossThreads) {
  constexpr int kThreads = 8;
  std::vector<RecordingHandler> handlers(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      c10::WarningUtils::WarningHandlerGuard guard(&handlers[t]);
      // Start together so the threads race for the first warning.
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int i = 0; i < 10; ++i) warn_once_threads_site();
    });
  }
  for (auto& th : threads) th.join();
  size_t total = 0;
  for (const auto& h : handlers) total += h.warnings.size();
  EXPECT_EQ(total, 1u);
  // And the main thread, calling after all of them, gets nothing either.
  RecordingHandler main_handler;
  c10::WarningUtils::WarningHandlerGuard guard(&main_handler);
  warn_once_threads_site();
  EXPECT_TRUE(main_handler.warnings.empty());
}

}  // namespace
