// Fuzz target: torch::distributed::rpc::wire::decode, the parser of every
// RPC frame a worker receives (See Note [RPC frame] in
// distributed/rpc/wire.h). The input is split into gRPC slices at points
// taken from its first byte, so that headers and tensors straddling slice
// boundaries are exercised. A c10::Error starting "rpc: bad message" is a
// correct refusal; a crash, a sanitizer report, another exception or an
// error with another text is a finding. A frame that decodes must encode
// again and decode to the same envelope.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "c10/util/Exception.h"
#include "distributed/rpc/wire.h"

namespace wire = torch::distributed::rpc::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned split = data[0];
  ++data;
  --size;
  // Up to four slices: cut points at multiples of (split % 61) + 1 bytes.
  std::vector<grpc::Slice> slices;
  const size_t step = (split % 61) + 1;
  size_t at = 0;
  for (int i = 0; i < 3 && at + step < size; ++i) {
    slices.emplace_back(data + at, step);
    at += step;
  }
  slices.emplace_back(data + at, size - at);
  grpc::ByteBuffer frame(slices.data(), slices.size());
  wire::Decoded d;
  try {
    d = wire::decode(frame);
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (what.rfind("rpc: bad message", 0) != 0) std::abort();
    return 0;
  }
  // Round trip: the values (tensors included) encode again.
  ember::rpc::Envelope env = d.envelope;
  env.clear_values();
  wire::Encoder enc;
  try {
    for (const auto& v : d.values) enc.add_value(env.add_values(), v);
  } catch (const c10::Error&) {
    return 0;  // e.g. a device value on a tensor's place: not sendable
  }
  wire::Decoded again = wire::decode(enc.finish(env));
  if (again.values.size() != d.values.size()) std::abort();
  return 0;
}
