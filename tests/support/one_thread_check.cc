// Linked into every suite declared with ember_cc_test(single_threaded =
// True), which --config=tsan leaves out (See Note [Suites TSan leaves out]
// in .bazelrc). Where OpenMP has one thread (OMP_NUM_THREADS=1, as under
// --config=asan) it fails the program if a thread was started while it ran:
// - under AddressSanitizer (clang's, the asan config's compiler), every
//   pthread_create is counted as it happens (pthread_create below), so a
//   thread started and joined inside one test is caught too, and the test
//   that started it is named;
// - in any build, the process must still have only its main thread after
//   each test (/proc/self/task).
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <gtest/gtest.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_ONE_THREAD_CHECK_COUNTS_CREATION 1
#endif
#endif

namespace {

bool check_active() {
  const char* omp = std::getenv("OMP_NUM_THREADS");
  return omp != nullptr && std::strcmp(omp, "1") == 0;
}

// The first test during or after which a second thread existed, and why
// (a function's static: a thread may start before this file's globals are
// constructed).
struct FirstThread {
  std::mutex mutex;
  std::string test;  // guarded by mutex
  std::string what;  // guarded by mutex
};
FirstThread& first_thread() {
  static FirstThread first;
  return first;
}

std::string test_name(const ::testing::TestInfo& info) {
  return std::string(info.test_suite_name()) + "." + info.name();
}

void record(const std::string& test, const std::string& what) {
  FirstThread& first = first_thread();
  std::lock_guard<std::mutex> lock(first.mutex);
  if (first.test.empty()) {
    first.test = test;
    first.what = what;
  }
}

int threads_in_this_process() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int n = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

class ThreadCountListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const int n = threads_in_this_process();
    if (n < 0) {
      record(test_name(info), "/proc/self/task could not be read after");
    } else if (n != 1) {
      record(test_name(info), "the process had " + std::to_string(n) + " threads after");
    }
  }
};

// Fails the program at the end if a second thread was seen (gtest tears
// environments down before it deletes the listeners).
class OneThreadCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    FirstThread& first = first_thread();
    std::lock_guard<std::mutex> lock(first.mutex);
    EXPECT_TRUE(first.test.empty())
        << "this suite is declared single_threaded (ember_cc_test), so --config=tsan leaves "
           "it out, but with OMP_NUM_THREADS=1 "
        << first.what << " " << first.test
        << ". Drop single_threaded from the suite's BUILD rule, so TSan checks it.";
  }
};

[[maybe_unused]] const bool one_thread_check_installed = [] {
  if (!check_active()) return false;
  // gtest owns both.
  ::testing::UnitTest::GetInstance()->listeners().Append(new ThreadCountListener);
  ::testing::AddGlobalTestEnvironment(new OneThreadCheck);
  return true;
}();

}  // namespace

#ifdef EMBER_ONE_THREAD_CHECK_COUNTS_CREATION
// Every thread start passes through here. The sanitizer's runtime, linked
// into the test executable, exports pthread_create as a weak symbol (its
// interceptor), which does the sanitizer's bookkeeping and then calls the
// next pthread_create after the executable: this one when this library is a
// shared object of the test (Bazel's default for tests), which then calls
// libc's. Linked into the executable itself, this definition replaces the
// weak one and calls the interceptor.
extern "C" int __interceptor_pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                                            void* (*start)(void*), void* arg);

namespace {

using PthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

std::string current_test() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info == nullptr ? "the program, outside any test" : test_name(*info);
}

// Whether the first pthread_create in the process lies in the object that
// holds this code (the executable), rather than the sanitizer's ahead of it.
bool this_object_is_first() {
  Dl_info first;
  Dl_info mine;
  return dladdr(dlsym(RTLD_DEFAULT, "pthread_create"), &first) != 0 &&
         dladdr(reinterpret_cast<void*>(&this_object_is_first), &mine) != 0 &&
         first.dli_fbase == mine.dli_fbase;
}

PthreadCreate next_pthread_create() {
  if (this_object_is_first()) return &__interceptor_pthread_create;
  return reinterpret_cast<PthreadCreate>(dlsym(RTLD_NEXT, "pthread_create"));
}

}  // namespace

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                              void* (*start)(void*), void* arg) {
  static const PthreadCreate next = next_pthread_create();
  if (check_active()) record(current_test(), "a thread was started during");
  return next(thread, attr, start, arg);
}
#endif
