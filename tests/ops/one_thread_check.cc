// Linked into every op-conformance suite tagged single_threaded
// (tests/ops/BUILD.bazel), which --config=tsan leaves out (See Note [Suites
// TSan leaves out] in .bazelrc). Where OpenMP has one thread
// (OMP_NUM_THREADS=1: --config=asan), it checks after every test that the
// process still has only its main thread, and fails the program otherwise.
#include <dirent.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace {

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

// Records the first test after which the process had more than one thread.
class ThreadCountListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const int n = threads_in_this_process();
    if (n != 1 && first.empty()) {  // -1: /proc/self/task unreadable
      first = std::string(info.test_suite_name()) + "." + info.name();
      threads = n;
    }
  }
  std::string first;
  int threads = 0;
};

// Fails the program at the end if the listener saw a second thread (gtest
// tears environments down before it deletes the listeners).
class OneThreadCheck : public ::testing::Environment {
 public:
  explicit OneThreadCheck(const ThreadCountListener* listener) : listener_(listener) {}
  void TearDown() override {
    EXPECT_TRUE(listener_->first.empty())
        << "this suite is tagged single_threaded (tests/ops/BUILD.bazel), so --config=tsan "
           "leaves it out, but after "
        << listener_->first << " the process had " << listener_->threads
        << " threads (-1: unreadable) with OMP_NUM_THREADS=1. Add the suite to "
           "THREADED_SUITES there.";
  }

 private:
  const ThreadCountListener* listener_;
};

[[maybe_unused]] const bool one_thread_check_installed = [] {
  const char* omp = std::getenv("OMP_NUM_THREADS");
  if (omp == nullptr || std::strcmp(omp, "1") != 0) return false;
  auto* listener = new ThreadCountListener;  // gtest owns both
  ::testing::UnitTest::GetInstance()->listeners().Append(listener);
  ::testing::AddGlobalTestEnvironment(new OneThreadCheck(listener));
  return true;
}();

}  // namespace
