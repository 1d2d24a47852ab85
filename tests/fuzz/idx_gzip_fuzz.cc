// Fuzz target: the MNIST IDX readers through gzip. The input (after its
// first byte, which picks the reader as in idx_fuzz.cc) is compressed first,
// so the fuzzer explores the IDX format inside valid gzip streams, with the
// last byte (mod 4) choosing a damage: none, the trailer cut off, one byte of
// garbage after it, or a second gzip member.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/Exception.h"
#include "nn/data/datasets/idx_reader.h"
#include "tests/fuzz/fuzz_file.h"

namespace datasets = torch::data::datasets;

namespace {

std::vector<uint8_t> gzip(const uint8_t* data, size_t size) {
  z_stream s{};
  if (deflateInit2(&s, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::vector<uint8_t> out(deflateBound(&s, size) + 32);
  s.next_in = const_cast<uint8_t*>(data);
  s.avail_in = static_cast<unsigned>(size);
  s.next_out = out.data();
  s.avail_out = static_cast<unsigned>(out.size());
  if (deflate(&s, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > 1 << 20) return 0;
  static ember_fuzz::MemoryFile in;
  std::vector<uint8_t> gz = gzip(data + 1, size - 2);
  switch (data[size - 1] % 4) {
    case 1:
      gz.resize(gz.size() - 8);  // no CRC-32 and length
      break;
    case 2:
      gz.push_back(data[size - 1]);  // garbage after the stream
      break;
    case 3: {
      const std::vector<uint8_t> empty = gzip(nullptr, 0);
      gz.insert(gz.end(), empty.begin(), empty.end());  // a second, empty member
      break;
    }
    default:
      break;
  }
  const std::string& path = in.write(gz.data(), gz.size());
  try {
    if (data[0] % 2 == 0) {
      datasets::detail::read_idx_images(path, (data[0] / 2) % 4);
    } else {
      datasets::detail::read_idx_labels(path, data[0] / 2, 0, "images");
    }
    // Damage is refused when the whole stream is read.
    if (data[size - 1] % 4 == 1 && data[0] % 2 == 1) std::abort();
    if (data[size - 1] % 4 == 2 && data[0] % 2 == 1) std::abort();
  } catch (const c10::Error&) {
  }
  return 0;
}
