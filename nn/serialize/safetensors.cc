#include "nn/serialize/safetensors.h"


#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"
#include "c10/util/FileIO.h"
#include "nn/serialize/json.h"

namespace torch {
namespace safetensors {
namespace {

namespace json = torch::serialize::json;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors stores little-endian data; Ember writes it with memcpy");

constexpr char kMetadataKey[] = "__metadata__";
// The header limit of the reference implementation (100 MB): a corrupt
// length must not make us allocate gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// At most as many dimensions as a tensor may have in PyTorch.
constexpr size_t kMaxDims = 64;

struct DtypeName {
  c10::ScalarType type;
  const char* name;
};
constexpr DtypeName kDtypes[] = {
    {c10::kDouble, "F64"}, {c10::kFloat, "F32"}, {c10::kHalf, "F16"},  {c10::kBFloat16, "BF16"},
    {c10::kLong, "I64"},   {c10::kInt, "I32"},   {c10::kShort, "I16"}, {c10::kChar, "I8"},
    {c10::kByte, "U8"},    {c10::kBool, "BOOL"},
};
constexpr char kDtypeList[] = "F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL";

const char* dtype_name(c10::ScalarType type) {
  for (const DtypeName& d : kDtypes) {
    if (d.type == type) return d.name;
  }
  return nullptr;
}

bool dtype_of(const std::string& name, c10::ScalarType* type) {
  for (const DtypeName& d : kDtypes) {
    if (name == d.name) {
      *type = d.type;
      return true;
    }
  }
  return false;
}

// A name as it appears in messages: JSON-quoted, so that a NUL or a line
// break inside it is shown as \u0000 or \n instead of cutting the message.
std::string quote(const std::string& s) { return json::dump(json::Value::string(s)); }

}  // namespace

void save(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
          const std::map<std::string, std::string>& metadata) {
  torch::NoGradGuard no_grad;
  json::Value::Object header;
  if (!metadata.empty()) {
    json::Value::Object meta;
    for (const auto& kv : metadata) {
      meta.emplace_back(kv.first, json::Value::string(kv.second));
    }
    header.emplace_back(kMetadataKey, json::Value::object(std::move(meta)));
  }
  std::vector<at::Tensor> contiguous;
  contiguous.reserve(tensors.size());
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    TORCH_CHECK(!name.empty(), "safetensors::save: ", path,
                ": a tensor has an empty name; give every tensor a name.");
    TORCH_CHECK(name != kMetadataKey, "safetensors::save: ", path, ": the name \"", kMetadataKey,
                "\" is reserved for the metadata; rename the tensor.");
    TORCH_CHECK(names.insert(name).second, "safetensors::save: ", path,
                ": duplicate tensor name \"", name, "\"; names must be unique.");
    TORCH_CHECK(tensor.defined(), "safetensors::save: ", path, ": tensor \"", name,
                "\" is undefined.");
    TORCH_CHECK(tensor.device().is_cpu(), "safetensors::save: ", path, ": tensor \"", name,
                "\" is on ", tensor.device(), "; move it to the CPU first.");
    const char* dtype = dtype_name(tensor.scalar_type());
    TORCH_CHECK(dtype != nullptr, "safetensors::save: ", path, ": tensor \"", name, "\" has dtype ",
                tensor.scalar_type(), ", which safetensors cannot store.");
    at::Tensor c = tensor.contiguous();
    const uint64_t bytes = static_cast<uint64_t>(c.numel()) * c.element_size();
    json::Value::Array shape;
    for (const int64_t s : c.sizes()) shape.push_back(json::Value::integer(s));
    json::Value::Object entry;
    entry.emplace_back("dtype", json::Value::string(dtype));
    entry.emplace_back("shape", json::Value::array(std::move(shape)));
    entry.emplace_back(
        "data_offsets",
        json::Value::array({json::Value::integer(static_cast<int64_t>(offset)),
                            json::Value::integer(static_cast<int64_t>(offset + bytes))}));
    header.emplace_back(name, json::Value::object(std::move(entry)));
    offset += bytes;
    contiguous.push_back(std::move(c));
  }
  std::string text = json::dump(json::Value::object(std::move(header)));
  text.append((8 - text.size() % 8) % 8, ' ');
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) {
    length[i] = static_cast<unsigned char>(static_cast<uint64_t>(text.size()) >> (8 * i));
  }

  // Written beside the target, then renamed over it: See the header comment.
  c10::AtomicFileWriter file("safetensors::save", path);
  file.write(length, sizeof(length));
  file.write(text.data(), text.size());
  for (const at::Tensor& c : contiguous) {
    const size_t bytes = static_cast<size_t>(c.numel()) * c.element_size();
    if (bytes > 0) file.write(c.data_ptr(), bytes);
  }
  file.commit();
}

namespace {

namespace json = torch::serialize::json;

struct Entry {
  std::string name;
  c10::ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin;
  uint64_t end;
};

// Validation of one header entry; errors name the file and the tensor.
class HeaderReader {
 public:
  explicit HeaderReader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& what) const {
    C10_THROW_ERROR(Error, "safetensors::load: ", path_, ": ", what, ".");
  }

  uint64_t non_negative(const json::Value& v, const std::string& name, const char* field) const {
    if (!v.is_integer() || v.as_int() < 0) {
      fail("tensor " + quote(name) + " has a " + field +
           " entry that is not a non-negative integer");
    }
    return static_cast<uint64_t>(v.as_int());
  }

  Entry entry(const std::string& name, const json::Value& v) const {
    // save() refuses an empty name, so a file with one would not round-trip.
    if (name.empty()) fail("a tensor has an empty name; every tensor of a safetensors file needs one");
    if (v.kind() != json::Value::Kind::kObject) {
      fail("the entry of tensor " + quote(name) + " is " + json::Value::kind_name(v.kind()) +
           ", expected an object with dtype, shape and data_offsets");
    }
    for (const auto& member : v.members()) {
      if (member.first != "dtype" && member.first != "shape" && member.first != "data_offsets") {
        fail("tensor " + quote(name) + " has an unknown field " + quote(member.first) +
             "; expected only dtype, shape and data_offsets");
      }
    }
    const json::Value* dtype = v.find("dtype");
    const json::Value* shape = v.find("shape");
    const json::Value* offsets = v.find("data_offsets");
    if (dtype == nullptr || shape == nullptr || offsets == nullptr) {
      fail("tensor " + quote(name) + " lacks " +
           (dtype == nullptr   ? "dtype"
            : shape == nullptr ? "shape"
                               : "data_offsets"));
    }
    Entry e;
    e.name = name;
    if (dtype->kind() != json::Value::Kind::kString || !dtype_of(dtype->as_string(), &e.dtype)) {
      fail("tensor " + quote(name) + " has the unknown dtype " +
           (dtype->kind() == json::Value::Kind::kString ? quote(dtype->as_string())
                                                        : json::dump(*dtype)) +
           "; Ember reads " + kDtypeList);
    }
    if (shape->kind() != json::Value::Kind::kArray) {
      fail("tensor " + quote(name) + " has a shape that is not an array");
    }
    uint64_t numel = 1;
    // The product of the non-zero sizes: at::empty refuses a shape whose
    // product overflows int64 even when another size is 0.
    uint64_t nonzero_product = 1;
    bool overflow = false;
    bool nonzero_overflow = false;
    bool has_zero = false;
    if (shape->items().size() > kMaxDims) {
      fail("tensor " + quote(name) + " has " + std::to_string(shape->items().size()) +
           " dimensions, more than the limit of " + std::to_string(kMaxDims));
    }
    for (const json::Value& s : shape->items()) {
      const uint64_t d = non_negative(s, name, "shape");
      e.shape.push_back(static_cast<int64_t>(d));
      if (d != 0 && numel > std::numeric_limits<int64_t>::max() / d) overflow = true;
      numel *= d;
      if (d != 0 && nonzero_product > std::numeric_limits<int64_t>::max() / d) {
        nonzero_overflow = true;
      }
      if (d != 0) nonzero_product *= d;
      if (d == 0) has_zero = true;
    }
    if (has_zero) {
      overflow = false;
      numel = 0;
    }
    if (nonzero_overflow && has_zero) {
      fail("tensor " + quote(name) + " has the shape " + json::dump(*shape) +
           ", whose non-zero sizes multiply to more than 2^63; Ember cannot make a tensor of it "
           "(even an empty one)");
    }
    if (offsets->kind() != json::Value::Kind::kArray || offsets->items().size() != 2) {
      fail("tensor " + quote(name) + " has data_offsets that are not an array [begin, end]");
    }
    e.begin = non_negative(offsets->items()[0], name, "data_offsets");
    e.end = non_negative(offsets->items()[1], name, "data_offsets");
    if (e.end < e.begin) {
      fail("tensor " + quote(name) + " has data_offsets [" + std::to_string(e.begin) + ", " +
           std::to_string(e.end) + "] that end before they begin");
    }
    const uint64_t element = c10::elementSize(e.dtype);
    if (overflow || numel > std::numeric_limits<uint64_t>::max() / element ||
        numel * element != e.end - e.begin) {
      std::string dims;
      for (size_t i = 0; i < e.shape.size(); ++i) {
        dims += (i == 0 ? "" : ", ") + std::to_string(e.shape[i]);
      }
      fail("tensor " + quote(name) + " of shape [" + dims + "] and dtype " + dtype->as_string() +
           " needs " +
           (overflow ? std::string("more than 2^63") : std::to_string(numel * element)) +
           " bytes, but its data_offsets [" + std::to_string(e.begin) + ", " +
           std::to_string(e.end) + "] hold " + std::to_string(e.end - e.begin));
    }
    return e;
  }

 private:
  const std::string& path_;
};

}  // namespace

File load(const std::string& path) {
  torch::NoGradGuard no_grad;
  HeaderReader reader(path);
  const c10::UniqueFd file =
      c10::open_regular_file("safetensors::load", path, "Pass the path of a checkpoint file.");
  const uint64_t file_size = file.size();
  // Reads exactly n bytes at `offset`; false at end of file.
  const auto read_at = [&](void* data, size_t n, uint64_t offset) {
    return c10::pread_exactly(file.get(), data, n, offset, "safetensors::load", path);
  };
  if (file_size < 8) {
    reader.fail("the file is truncated: expected at least 8 bytes (the header length), got " +
                std::to_string(file_size));
  }
  unsigned char length_bytes[8];
  if (!read_at(length_bytes, 8, 0)) reader.fail("cannot read the header length");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | length_bytes[i];
  if (header_size > kMaxHeaderBytes) {
    reader.fail("the header length " + std::to_string(header_size) +
                " is larger than the limit of " + std::to_string(kMaxHeaderBytes) +
                " bytes; the file is corrupt or not a safetensors file");
  }
  if (header_size > file_size - 8) {
    reader.fail("the file is truncated: the header length is " + std::to_string(header_size) +
                " bytes but only " + std::to_string(file_size - 8) + " bytes follow it");
  }
  std::string text(header_size, '\0');
  if (!read_at(text.data(), header_size, 8)) reader.fail("cannot read the header");

  json::Value header;
  try {
    header = json::parse(text);
  } catch (const c10::Error& e) {
    std::string message = e.what_without_backtrace();
    if (!message.empty() && message.back() == '.') message.pop_back();
    reader.fail("invalid header: " + message +
                " (counted from the start of the header, at file offset 8)");
  }
  if (header.kind() != json::Value::Kind::kObject) {
    reader.fail(std::string("the header is ") + json::Value::kind_name(header.kind()) +
                ", expected an object");
  }

  File result;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.members()) {
    if (name == kMetadataKey) {
      if (value.kind() != json::Value::Kind::kObject) {
        reader.fail("__metadata__ is " + std::string(json::Value::kind_name(value.kind())) +
                    ", expected an object of strings");
      }
      for (const auto& [key, v] : value.members()) {
        if (v.kind() != json::Value::Kind::kString) {
          reader.fail("metadata " + quote(key) + " is " + json::Value::kind_name(v.kind()) +
                      ", expected a string");
        }
        result.metadata.emplace(key, v.as_string());
      }
      continue;
    }
    entries.push_back(reader.entry(name, value));
  }

  // The data must be covered exactly: no overlaps, no gaps, nothing after.
  const uint64_t data_size = file_size - 8 - header_size;
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry* e : by_offset) {
    if (e->end > data_size) {
      reader.fail("tensor " + quote(e->name) + " has data_offsets [" + std::to_string(e->begin) +
                  ", " + std::to_string(e->end) + "] beyond the " + std::to_string(data_size) +
                  " bytes of data; the file is truncated or its header is wrong");
    }
    if (e->begin < covered) {
      reader.fail("tensors " + quote(previous->name) + " and " + quote(e->name) +
                  " overlap: data_offsets [" + std::to_string(previous->begin) + ", " +
                  std::to_string(previous->end) + "] and [" + std::to_string(e->begin) + ", " +
                  std::to_string(e->end) + "]");
    }
    if (e->begin > covered) {
      reader.fail("bytes [" + std::to_string(covered) + ", " + std::to_string(e->begin) +
                  ") of the data belong to no tensor; safetensors data has no gaps");
    }
    covered = e->end;
    previous = e;
  }
  if (covered != data_size) {
    reader.fail("the header describes " + std::to_string(covered) + " bytes of data but " +
                std::to_string(data_size) + " follow it; the file has trailing bytes");
  }

  const uint64_t data_start = 8 + header_size;
  result.tensors.reserve(entries.size());
  for (const Entry& e : entries) {
    at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(e.dtype));
    const uint64_t bytes = e.end - e.begin;
    if (bytes > 0 && !read_at(t.data_ptr(), bytes, data_start + e.begin)) {
      reader.fail("the file is truncated while reading tensor " + quote(e.name));
    }
    result.tensors.emplace_back(e.name, std::move(t));
  }
  return result;
}

}  // namespace safetensors
}  // namespace torch
