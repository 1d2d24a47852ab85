// nn/serialize/json.h — a small strict JSON reader and writer, for the
// headers of checkpoint files (safetensors). Not a general JSON library: no
// streaming, numbers are int64 or double, whole documents only.
//
//   torch::serialize::json::Value v = torch::serialize::json::parse(R"({"a":[1,2]})");
//   v.at("a").items()[1].as_int();          // 2
//   torch::serialize::json::dump(v);        // {"a":[1,2]}
//
// Reading follows RFC 8259 strictly: no comments, trailing commas, leading
// zeros, single quotes, control characters in strings or lone surrogates;
// objects with a repeated key are rejected; nesting is limited to 64 levels.
// Errors throw c10::Error with the byte offset of the problem.
//
// Note [JSON reader limits]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// The reader is fed untrusted checkpoint headers (up to 100 MB), so its cost
// is bounded by the text: parsing is O(n log n) (a repeated key is found by
// sorting each object's keys once, not by comparing every pair), a Value is
// 16 bytes (scalars inline, strings, arrays and objects behind one pointer,
// containers trimmed to their size), so a document costs at most about 16
// bytes per byte of text (`[0,0,...]`: 8 bytes per value of 2 characters,
// plus the vector), and nesting deeper than kMaxDepth = 64 levels is refused
// before it can exhaust the stack.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torch {
namespace serialize {
namespace json {

// torch::serialize::json::Value
//
// A JSON value. Objects keep their keys in document order. Numbers remember
// whether they were written as an integer that fits int64 (then as_int()
// is exact). A value type: copies are deep. 16 bytes (See Note [JSON reader
// limits]).
class Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() noexcept : int_(0) {}  // null
  Value(const Value& other);
  Value(Value&& other) noexcept;
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept;
  ~Value();

  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value number(double d);
  static Value string(std::string s);
  static Value array(Array items);
  static Value object(Object members);

  Kind kind() const noexcept { return kind_; }
  bool is_integer() const noexcept { return kind_ == Kind::kNumber && is_int_; }

  // Checked accessors: each throws if the value is of another kind (or, for
  // as_int, a number that is not an integer in int64's range).
  bool as_bool() const;
  int64_t as_int() const;
  double as_double() const;
  const std::string& as_string() const;
  const Array& items() const;
  const Object& members() const;

  // The member named `key`; throws if this is not an object or has none.
  const Value& at(std::string_view key) const;
  // The member named `key`, or nullptr.
  const Value* find(std::string_view key) const;

  // "null", "a boolean", "a number", "a string", "an array", "an object".
  static const char* kind_name(Kind kind);

 private:
  void reset() noexcept;

  Kind kind_ = Kind::kNull;
  bool is_int_ = false;
  union {
    bool bool_;
    int64_t int_;
    double double_;
    std::string* string_;
    Array* array_;
    Object* object_;
  };
};

// Parses one JSON document (surrounding whitespace allowed). Throws
// "JSON: <problem> at byte <offset>" on any syntax error.
Value parse(std::string_view text);

// Compact JSON (no spaces), keys in stored order. Strings are escaped as
// Python's json.dumps(ensure_ascii=False) does: \" \\ \b \f \n \r \t and
// \u00XX for other control characters; other characters are copied. Throws
// for a non-finite number.
std::string dump(const Value& value);

}  // namespace json
}  // namespace serialize
}  // namespace torch
