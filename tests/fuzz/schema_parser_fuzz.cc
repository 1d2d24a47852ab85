// Fuzz target: c10::parseSchema and c10::parseName on arbitrary text. Any
// c10::Error is a correct refusal; a crash, a sanitizer report or another
// exception is a finding. A schema that parses must print back to text that
// parses to the same schema.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "c10/util/Exception.h"
#include "registration/schema_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    c10::parseName(text);
  } catch (const c10::Error&) {
  }
  try {
    const c10::FunctionSchema schema = c10::parseSchema(text);
    std::ostringstream printed, reprinted;
    printed << schema;
    reprinted << c10::parseSchema(printed.str());
    if (reprinted.str() != printed.str()) std::abort();
  } catch (const c10::Error&) {
  }
  return 0;
}
