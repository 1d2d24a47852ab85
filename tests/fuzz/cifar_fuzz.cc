// Fuzz target: torch::data::datasets::CIFAR10 (test mode) on an arbitrary
// test_batch.bin: a folder whose test_batch.bin links to the in-memory file.
// The first byte is the limit of records (mod 4, 0 = all). Any c10::Error is
// a correct refusal.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "c10/util/Exception.h"
#include "nn/data/datasets/cifar.h"
#include "tests/fuzz/fuzz_file.h"

namespace {

// A folder (under TEST_TMPDIR or /tmp) holding test_batch.bin -> the memfd.
struct Folder {
  ember_fuzz::MemoryFile file;
  std::string dir;
  Folder() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/cifar-fuzz-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) std::abort();
    if (symlink(file.path().c_str(), (dir + "/test_batch.bin").c_str()) != 0) std::abort();
  }
  ~Folder() {
    unlink((dir + "/test_batch.bin").c_str());
    rmdir(dir.c_str());
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static Folder folder;
  folder.file.write(data + 1, size - 1);
  const int64_t limit = data[0] % 4;
  try {
    torch::data::datasets::CIFAR10 set(folder.dir, torch::data::datasets::CIFAR10::Mode::kTest,
                                       limit);
    const int64_t n = static_cast<int64_t>(set.size().value());
    const auto records = static_cast<int64_t>((size - 1) / 3073);
    if (n != (limit > 0 ? std::min(limit, records) : records)) {
      std::abort();
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
