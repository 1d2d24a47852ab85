// Fuzz target: torch::serialize::json::parse on arbitrary text (a
// safetensors header). Any c10::Error is a correct refusal. A document that
// parses must dump to JSON that parses and dumps to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "c10/util/Exception.h"
#include "nn/serialize/json.h"

namespace json = torch::serialize::json;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  json::Value v;
  try {
    v = json::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const c10::Error&) {
    return 0;
  }
  const std::string dumped = json::dump(v);  // parsed numbers are finite
  const std::string again = json::dump(json::parse(dumped));
  if (again != dumped) std::abort();
  return 0;
}
