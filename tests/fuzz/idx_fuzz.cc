// Fuzz target: the MNIST IDX readers (nn/data/datasets/idx_reader.h) on an
// arbitrary file, plain or gzip (the reader tells them by their magic). The
// first byte picks the reader: even, images (with a limit of (byte / 2) % 4
// images, 0 = all); odd, labels of an images file holding (byte / 2) images.
// Any c10::Error is a correct refusal; an allocation beyond -rss_limit_mb is
// a finding (sizes must be checked against the file before allocating).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "aten/Tensor.h"
#include "c10/util/Exception.h"
#include "nn/data/datasets/idx_reader.h"
#include "tests/fuzz/fuzz_file.h"

namespace datasets = torch::data::datasets;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static ember_fuzz::MemoryFile in;
  const std::string& path = in.write(data + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      const int64_t limit = (data[0] / 2) % 4;
      int64_t count = 0;
      const at::Tensor images = datasets::detail::read_idx_images(path, limit, &count);
      if (images.dim() != 4 || (limit > 0 && images.size(0) > limit) || images.size(0) > count) {
        std::abort();
      }
    } else {
      const at::Tensor labels = datasets::detail::read_idx_labels(path, data[0] / 2, 0, "images");
      if (labels.dim() != 1 || labels.size(0) != data[0] / 2) std::abort();
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
