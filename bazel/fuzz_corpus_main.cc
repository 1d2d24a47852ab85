// bazel/fuzz_corpus_main.cc — main() of a fuzz target outside --config=asan:
// runs LLVMFuzzerTestOneInput once over each file named on the command line
// (See Note [Fuzz targets] in bazel/fuzz.bzl). Arguments starting with '-'
// are libFuzzer flags and are skipped. Each input is copied into a buffer
// of exactly its size, so that ASan sees a read past its end.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    if (path.empty() || path[0] == '-') continue;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fuzz corpus: cannot read %s\n", path.c_str());
      return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() + (bytes.empty() ? 1 : 0)]);
    std::copy(bytes.begin(), bytes.end(), exact.get());
    std::fprintf(stderr, "fuzz corpus: %s (%zu bytes)\n", path.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(exact.get(), bytes.size());
    ++ran;
  }
  std::fprintf(stderr, "fuzz corpus: ran %d inputs\n", ran);
  // No inputs means a broken corpus glob: fail rather than pass vacuously.
  return ran > 0 ? 0 : 1;
}
