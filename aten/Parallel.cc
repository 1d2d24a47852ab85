#include "aten/Parallel.h"

#include <atomic>
#include <cstdlib>
#include <thread>

#include "c10/util/Exception.h"

namespace at {
namespace {

int default_num_threads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

// 0 until first read or set. Relaxed: the value is a standalone setting
// that publishes no other data.
std::atomic<int> g_num_threads{0};

}  // namespace

void set_num_threads(int n) {
  TORCH_CHECK(n > 0, "set_num_threads: expected a positive number of threads, "
              "but got ", n, ".");
  g_num_threads.store(n, std::memory_order_relaxed);
}

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  int expected = 0;
  n = default_num_threads();
  // Another thread may have set it meanwhile: keep its value.
  if (!g_num_threads.compare_exchange_strong(expected, n, std::memory_order_relaxed)) {
    return expected;
  }
  return n;
}

}  // namespace at
