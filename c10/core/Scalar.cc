// c10/core/Scalar.cc — c10::Scalar's error paths, negation, comparison and
// printing. The conversions themselves are inline in Scalar.h.
#include "c10/core/Scalar.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace c10 {

namespace {

// Whether integer `i` and double `d` are the same number, without rounding
// either: `d` must be integral and within int64_t's range.
bool integer_equals_double(int64_t i, double d) {
  // [-2^63, 2^63) is exactly the range of doubles that cast to int64_t;
  // NaN fails the comparisons.
  if (!(d >= -0x1p63 && d < 0x1p63) || std::trunc(d) != d) return false;
  return static_cast<int64_t>(d) == i;
}

}  // namespace

void Scalar::report_unsigned_too_large(uint64_t value) {
  C10_THROW_ERROR(Error, "Scalar: value ", value,
                  " of an unsigned 64-bit type does not fit in int64_t, the "
                  "widest integer a Scalar holds (at most ",
                  std::numeric_limits<int64_t>::max(),
                  "). Pass a smaller value, or a double if an approximation is "
                  "acceptable.");
}

void Scalar::report_overflow(const char* accessor, const char* type_name,
                             const char* range) const {
  C10_THROW_ERROR(Error, "Scalar::", accessor, ": value ", *this,
                  " cannot be converted to type ", type_name,
                  " without overflow; ", type_name, " holds ", range,
                  ". Pass a value in that range, or read it as a wider type "
                  "(toDouble() accepts every value).");
}

Scalar Scalar::operator-() const {
  switch (tag_) {
    case Tag::Double:
      return Scalar(-v_.d);
    case Tag::Long:
      TORCH_CHECK(v_.i != std::numeric_limits<int64_t>::min(),
                  "Scalar::operator-: negating ", v_.i,
                  " overflows int64_t, whose largest value is ",
                  std::numeric_limits<int64_t>::max(),
                  ". Negate it as a double instead: -Scalar(s.toDouble()).");
      return Scalar(-v_.i);
    case Tag::Bool:
      break;
  }
  C10_THROW_ERROR(Error, "Scalar::operator-: the negative of a bool (", *this,
                  ") is not supported, as in PyTorch. Use logical not "
                  "(!s.toBool()) for a bool, or negate an integer Scalar.");
}

bool Scalar::equal_integer(int64_t num) const {
  switch (tag_) {
    case Tag::Double:
      return integer_equals_double(num, v_.d);
    case Tag::Long:
      return v_.i == num;
    case Tag::Bool:
      break;
  }
  return false;  // A bool equals only a bool.
}

bool Scalar::equal_unsigned(uint64_t num) const {
  if (num <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return equal_integer(static_cast<int64_t>(num));
  }
  // Above INT64_MAX: no integer Scalar holds it; a double might, exactly.
  return tag_ == Tag::Double && v_.d >= 0x1p63 && v_.d < 0x1p64 &&
         static_cast<uint64_t>(v_.d) == num;
}

bool Scalar::equal_floating(double num) const {
  switch (tag_) {
    case Tag::Double:
      return v_.d == num;
    case Tag::Long:
      return integer_equals_double(v_.i, num);
    case Tag::Bool:
      break;
  }
  return false;  // A bool equals only a bool.
}

std::ostream& operator<<(std::ostream& out, const Scalar& s) {
  if (s.isBoolean()) return out << (s.toBool() ? "true" : "false");
  if (s.isIntegral(false)) return out << s.toLong();
  // Shortest text that reads back as the same double (std::to_chars without
  // a precision): 0.1 prints as "0.1", not "0.10000000000000001".
  const double d = s.toDouble();
  char buf[32];  // The longest shortest form is 24 characters.
  const auto result = std::to_chars(buf, buf + sizeof(buf), d);
  TORCH_INTERNAL_ASSERT(result.ec == std::errc(),
                        "std::to_chars failed to format a double");
  return out.write(buf, result.ptr - buf);
}

std::string toString(const Scalar& s) { return c10::str(s); }

}  // namespace c10
