#include "backends/cpu/parallel.h"

#include <omp.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>

#include "aten/Parallel.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

int num_threads() {
  const int want = at::get_num_threads();
  // Compared with OpenMP's own setting, not a copy of what was applied last:
  // a program that calls omp_set_num_threads itself must not leave oneDNN a
  // larger team on this thread.
  if (omp_get_max_threads() != want) omp_set_num_threads(want);
  return want;
}

namespace {

// The size of the largest-level cache of CPU 0, from sysfs as lscpu reads
// it; 0 where it cannot be read. Not sysconf(_SC_LEVEL3_CACHE_SIZE): on a
// virtual machine of a many-chiplet CPU glibc reports every chiplet's L3
// together (384 MiB on this project's 2-vCPU Zen 4 VMs, where one core sees
// 32 MiB).
int64_t last_level_cache_bytes() {
  int best_level = 0;
  int64_t best_bytes = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || size.empty()) continue;
    char* end = nullptr;
    int64_t bytes = std::strtoll(size.c_str(), &end, 10);
    if (*end == 'K') bytes <<= 10;
    if (*end == 'M') bytes <<= 20;
    if (*end == 'G') bytes <<= 30;
    if (level > best_level && bytes > 0) best_level = level, best_bytes = bytes;
  }
  return best_bytes;
}

int64_t read_streaming_store_bytes() {
  if (const char* env = std::getenv("EMBER_STREAMING_STORE_BYTES")) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(env, &end, 10);
    TORCH_CHECK(end != env && *end == '\0' && errno == 0 && v > 0,
                "EMBER_STREAMING_STORE_BYTES must be a positive number of bytes, got \"",
                env, "\". Unset it to use the last-level cache's size.");
    return v;
  }
  const int64_t llc = last_level_cache_bytes();
  return llc > 0 ? llc : int64_t{32} << 20;
}

}  // namespace

int64_t streaming_store_bytes() {
  static const int64_t bytes = read_streaming_store_bytes();
  return bytes;
}

}  // namespace ember::cpu
