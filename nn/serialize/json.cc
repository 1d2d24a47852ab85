#include "nn/serialize/json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "c10/util/Exception.h"

namespace torch {
namespace serialize {
namespace json {

static_assert(sizeof(Value) == 16, "See Note [JSON reader limits]");

Value::Value(const Value& other) : kind_(other.kind_), is_int_(other.is_int_) {
  switch (kind_) {
    case Kind::kString:
      string_ = new std::string(*other.string_);
      break;
    case Kind::kArray:
      array_ = new Array(*other.array_);
      break;
    case Kind::kObject:
      object_ = new Object(*other.object_);
      break;
    default:
      int_ = other.int_;  // the widest scalar member: copies bool and double too
  }
}

Value::Value(Value&& other) noexcept : kind_(other.kind_), is_int_(other.is_int_) {
  int_ = other.int_;
  if (kind_ == Kind::kString) string_ = other.string_;
  if (kind_ == Kind::kArray) array_ = other.array_;
  if (kind_ == Kind::kObject) object_ = other.object_;
  other.kind_ = Kind::kNull;
}

Value& Value::operator=(const Value& other) {
  if (this != &other) {
    Value copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this != &other) {
    reset();
    kind_ = other.kind_;
    is_int_ = other.is_int_;
    int_ = other.int_;
    if (kind_ == Kind::kString) string_ = other.string_;
    if (kind_ == Kind::kArray) array_ = other.array_;
    if (kind_ == Kind::kObject) object_ = other.object_;
    other.kind_ = Kind::kNull;
  }
  return *this;
}

Value::~Value() { reset(); }

void Value::reset() noexcept {
  switch (kind_) {
    case Kind::kString:
      delete string_;
      break;
    case Kind::kArray:
      delete array_;
      break;
    case Kind::kObject:
      delete object_;
      break;
    default:
      break;
  }
  kind_ = Kind::kNull;
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::kNumber;
  v.is_int_ = true;
  v.int_ = i;
  return v;
}

Value Value::number(double d) {
  Value v;
  v.kind_ = Kind::kNumber;
  v.double_ = d;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.string_ = new std::string(std::move(s));
  v.kind_ = Kind::kString;
  return v;
}

Value Value::array(Array items) {
  Value v;
  items.shrink_to_fit();
  v.array_ = new Array(std::move(items));
  v.kind_ = Kind::kArray;
  return v;
}

Value Value::object(Object members) {
  Value v;
  members.shrink_to_fit();
  v.object_ = new Object(std::move(members));
  v.kind_ = Kind::kObject;
  return v;
}

const char* Value::kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "a boolean";
    case Kind::kNumber:
      return "a number";
    case Kind::kString:
      return "a string";
    case Kind::kArray:
      return "an array";
    case Kind::kObject:
      return "an object";
  }
  C10_THROW_ERROR(Error, "JSON: unknown value kind ", static_cast<int>(kind), ".");
}

namespace {
void check_kind(Value::Kind actual, Value::Kind expected) {
  TORCH_CHECK(actual == expected, "JSON: expected ", Value::kind_name(expected), ", got ",
              Value::kind_name(actual), ".");
}
}  // namespace

bool Value::as_bool() const {
  check_kind(kind_, Kind::kBool);
  return bool_;
}

int64_t Value::as_int() const {
  check_kind(kind_, Kind::kNumber);
  TORCH_CHECK(is_int_, "JSON: expected an integer in [-2^63, 2^63), got ", double_, ".");
  return int_;
}

double Value::as_double() const {
  check_kind(kind_, Kind::kNumber);
  return is_int_ ? static_cast<double>(int_) : double_;
}

const std::string& Value::as_string() const {
  check_kind(kind_, Kind::kString);
  return *string_;
}

const Value::Array& Value::items() const {
  check_kind(kind_, Kind::kArray);
  return *array_;
}

const Value::Object& Value::members() const {
  check_kind(kind_, Kind::kObject);
  return *object_;
}

const Value* Value::find(std::string_view key) const {
  for (const auto& member : members()) {
    if (member.first == key) {
      return &member.second;
    }
  }
  return nullptr;
}

const Value& Value::at(std::string_view key) const {
  const Value* v = find(key);
  TORCH_CHECK(v != nullptr, "JSON: the object has no member \"", std::string(key), "\".");
  return *v;
}

// ---- parsing ----

namespace {

constexpr int kMaxDepth = 64;

void dump_string_to(std::string& out, const std::string& s);

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Value document() {
    skip_whitespace();
    Value v = value(0);
    skip_whitespace();
    if (pos_ != text_.size()) {
      fail("unexpected '" + printable(text_[pos_]) + "' after the document");
    }
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    C10_THROW_ERROR(Error, "JSON: ", what, " at byte ", pos_, ".");
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      return std::string(1, c);
    }
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02x", u);
    return buf;
  }

  bool at_end() const { return pos_ >= text_.size(); }

  void skip_whitespace() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                         text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  void expect_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) {
      fail("invalid literal (expected \"" + std::string(word) + "\")");
    }
    pos_ += word.size();
  }

  Value value(int depth) {
    if (at_end()) {
      fail("unexpected end of input, expected a value");
    }
    switch (text_[pos_]) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"':
        return Value::string(string());
      case 't':
        expect_literal("true");
        return Value::boolean(true);
      case 'f':
        expect_literal("false");
        return Value::boolean(false);
      case 'n':
        expect_literal("null");
        return Value();
      default:
        if (text_[pos_] == '-' || (text_[pos_] >= '0' && text_[pos_] <= '9')) {
          return number();
        }
        fail("unexpected '" + printable(text_[pos_]) + "', expected a value");
    }
  }

  void check_depth(int depth) const {
    if (depth > kMaxDepth) {
      fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    }
  }

  Value object(int depth) {
    check_depth(depth);
    ++pos_;  // '{'
    Value::Object members;
    std::vector<size_t> key_positions;
    skip_whitespace();
    if (!at_end() && text_[pos_] == '}') {
      ++pos_;
      return Value::object(std::move(members));
    }
    for (;;) {
      skip_whitespace();
      if (at_end() || text_[pos_] != '"') {
        fail(at_end() ? "unexpected end of input, expected a key"
                      : "expected a string key, got '" + printable(text_[pos_]) + "'");
      }
      key_positions.push_back(pos_);
      std::string key = string();
      skip_whitespace();
      if (at_end() || text_[pos_] != ':') {
        fail("expected ':' after a key");
      }
      ++pos_;
      skip_whitespace();
      Value v = value(depth);
      members.emplace_back(std::move(key), std::move(v));
      skip_whitespace();
      if (at_end()) {
        fail("unexpected end of input, expected ',' or '}'");
      }
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        check_unique_keys(members, key_positions);
        return Value::object(std::move(members));
      }
      fail("expected ',' or '}', got '" + printable(text_[pos_]) + "'");
    }
  }

  // A repeated key, found by sorting the keys once: O(n log n) where
  // comparing every pair would be quadratic. Reports the first repetition
  // in document order.
  void check_unique_keys(const Value::Object& members, const std::vector<size_t>& key_positions) {
    if (members.size() < 2) return;
    std::vector<uint32_t> order(members.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const int c = members[a].first.compare(members[b].first);
      return c != 0 ? c < 0 : a < b;
    });
    size_t repeated = members.size();
    for (size_t i = 1; i < order.size(); ++i) {
      if (members[order[i]].first == members[order[i - 1]].first) {
        repeated = std::min<size_t>(repeated, order[i]);
      }
    }
    if (repeated != members.size()) {
      pos_ = key_positions[repeated];
      std::string shown;
      dump_string_to(shown, members[repeated].first);
      fail("duplicate key " + shown);
    }
  }

  Value array(int depth) {
    check_depth(depth);
    ++pos_;  // '['
    Value::Array items;
    skip_whitespace();
    if (!at_end() && text_[pos_] == ']') {
      ++pos_;
      return Value::array(std::move(items));
    }
    for (;;) {
      skip_whitespace();
      items.push_back(value(depth));
      skip_whitespace();
      if (at_end()) {
        fail("unexpected end of input, expected ',' or ']'");
      }
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        return Value::array(std::move(items));
      }
      fail("expected ',' or ']', got '" + printable(text_[pos_]) + "'");
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) {
      fail("unexpected end of input in a \\u escape");
    }
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<unsigned>(c - 'A' + 10);
      } else {
        fail("invalid hex digit '" + printable(c) + "' in a \\u escape");
      }
      ++pos_;
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++pos_;  // '"'
    std::string out;
    for (;;) {
      if (at_end()) {
        fail("unterminated string");
      }
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        fail("control character " + printable(c) + " in a string (escape it)");
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) {
        fail("unterminated escape in a string");
      }
      const char e = text_[pos_];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          ++pos_;
          break;
        case 'b':
          out += '\b';
          ++pos_;
          break;
        case 'f':
          out += '\f';
          ++pos_;
          break;
        case 'n':
          out += '\n';
          ++pos_;
          break;
        case 'r':
          out += '\r';
          ++pos_;
          break;
        case 't':
          out += '\t';
          ++pos_;
          break;
        case 'u': {
          const size_t escape_pos = pos_ - 1;
          ++pos_;
          unsigned cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) {
            pos_ = escape_pos;
            fail("lone low surrogate in a \\u escape");
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") {
              pos_ = escape_pos;
              fail("high surrogate not followed by a low surrogate");
            }
            pos_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) {
              pos_ = escape_pos;
              fail("high surrogate not followed by a low surrogate");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail("invalid escape '\\" + printable(e) + "'");
      }
    }
  }

  Value number() {
    const size_t start = pos_;
    bool integral = true;
    if (text_[pos_] == '-') {
      ++pos_;
    }
    if (at_end() || text_[pos_] < '0' || text_[pos_] > '9') {
      fail("expected a digit");
    }
    if (text_[pos_] == '0') {
      ++pos_;
      if (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        fail("leading zero in a number");
      }
    } else {
      while (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        ++pos_;
      }
    }
    if (!at_end() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (at_end() || text_[pos_] < '0' || text_[pos_] > '9') {
        fail("expected a digit after the decimal point");
      }
      while (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        ++pos_;
      }
    }
    if (!at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (!at_end() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      if (at_end() || text_[pos_] < '0' || text_[pos_] > '9') {
        fail("expected a digit in the exponent");
      }
      while (!at_end() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        ++pos_;
      }
    }
    const std::string literal(text_.substr(start, pos_ - start));
    if (integral) {
      errno = 0;
      char* end = nullptr;
      const long long i = std::strtoll(literal.c_str(), &end, 10);
      if (errno == 0 && end == literal.c_str() + literal.size()) {
        return Value::integer(static_cast<int64_t>(i));
      }
    }
    const double d = std::strtod(literal.c_str(), nullptr);
    if (!std::isfinite(d)) {
      pos_ = start;
      fail("number " + literal + " is out of double's range");
    }
    return Value::number(d);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// ---- writing ----

void dump_string_to(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

// Recursive: parse() limits the nesting of what it reads to 64 levels, and
// the checkpoint writer builds two; a caller who builds a deeper Value
// pays one stack frame per level.
void dump_value(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      out += "null";
      return;
    case Value::Kind::kBool:
      out += v.as_bool() ? "true" : "false";
      return;
    case Value::Kind::kNumber: {
      if (v.is_integer()) {
        out += std::to_string(v.as_int());
        return;
      }
      const double d = v.as_double();
      TORCH_CHECK(std::isfinite(d), "JSON: cannot write the non-finite number ", d,
                  "; JSON has no NaN or infinity.");
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      out += buf;
      // As Python writes floats: "3.0", "-0.0", never "3" or "-0", which
      // read back as the integer 0 and lose the sign (found by json_fuzz).
      if (std::strpbrk(buf, ".eE") == nullptr) out += ".0";
      return;
    }
    case Value::Kind::kString:
      dump_string_to(out, v.as_string());
      return;
    case Value::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const Value& item : v.items()) {
        if (!first) out += ',';
        first = false;
        dump_value(out, item);
      }
      out += ']';
      return;
    }
    case Value::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const auto& member : v.members()) {
        if (!first) out += ',';
        first = false;
        dump_string_to(out, member.first);
        out += ':';
        dump_value(out, member.second);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

std::string dump(const Value& value) {
  std::string out;
  dump_value(out, value);
  return out;
}

}  // namespace json
}  // namespace serialize
}  // namespace torch
