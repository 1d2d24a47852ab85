// aten/RandomChecks.cc — see RandomChecks.h. The words are the CPU plugin's
// (tests/ops/random_distributions_test.cc asserts them).
#include "aten/RandomChecks.h"

#include <cmath>
#include <limits>
#include <string>

#include "c10/util/BFloat16.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace at {
namespace native {

std::pair<int64_t, int64_t> random_integer_bounds(c10::ScalarType dtype) {
  auto mantissa = [](int digits) {
    const int64_t m = int64_t{1} << digits;
    return std::pair<int64_t, int64_t>{-m, m};
  };
  switch (dtype) {
    case c10::kBool: return {0, 1};
    case c10::kByte: return {0, std::numeric_limits<uint8_t>::max()};
    case c10::kChar: return {std::numeric_limits<int8_t>::lowest(), std::numeric_limits<int8_t>::max()};
    case c10::kShort: return {std::numeric_limits<int16_t>::lowest(), std::numeric_limits<int16_t>::max()};
    case c10::kInt: return {std::numeric_limits<int32_t>::lowest(), std::numeric_limits<int32_t>::max()};
    case c10::kLong: return {std::numeric_limits<int64_t>::lowest(), std::numeric_limits<int64_t>::max()};
    case c10::kHalf: return mantissa(11);
    case c10::kBFloat16: return mantissa(8);
    case c10::kFloat: return mantissa(std::numeric_limits<float>::digits);
    case c10::kDouble: return mantissa(std::numeric_limits<double>::digits);
    default: break;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(false, "random_: dtype ", dtype, " is not supported.");
  return {0, 0};
}

RandomRange random_range(c10::ScalarType dtype, int64_t from, std::optional<int64_t> to) {
  const auto bounds = random_integer_bounds(dtype);
  RandomRange r;
  r.from = from;
  std::string to_text;
  if (to.has_value()) {
    TORCH_CHECK(from < *to, "random_: expects 'from' to be less than 'to', but "
                "got from=", from, " >= to=", *to, ". Pass from < to.");
    r.to_inclusive = *to - 1;
    to_text = std::to_string(*to);
  } else {
    r.to_inclusive = bounds.second;
    TORCH_CHECK(from <= r.to_inclusive, "random_: expects 'from' to be at most ",
                r.to_inclusive, " (the largest value of dtype ", dtype,
                "), but got from=", from, ". Pass a smaller from.");
    to_text = std::to_string(r.to_inclusive) + " + 1";
  }
  TORCH_CHECK(from >= bounds.first && r.to_inclusive <= bounds.second,
              "random_: the range [", from, ", ", to_text, ") does not fit dtype ",
              dtype, ", which holds the integers [", bounds.first, ", ", bounds.second,
              "]. Pass bounds inside that range or use a wider dtype.");
  r.range = static_cast<uint64_t>(r.to_inclusive) - static_cast<uint64_t>(from) + 1;
  return r;
}

void check_randint_bounds(int64_t low, int64_t high) {
  TORCH_CHECK(low < high, "randint: expects low < high, but got low=", low, " and high=",
              high, ". Pass a high greater than low (high is excluded).");
}

void check_randperm(int64_t n, c10::ScalarType dtype) {
  TORCH_CHECK(n >= 0, "randperm: n must be non-negative, but got n=", n, ".");
  TORCH_CHECK(dtype != c10::kBool, "randperm: dtype Bool cannot hold a permutation. "
              "Pass an integral or floating dtype such as Long.");
  const int64_t highest = random_integer_bounds(dtype).second;
  TORCH_CHECK(n == 0 || n - 1 <= highest, "randperm: n=", n, " is too large for dtype ",
              dtype, ", which holds the integers up to ", highest,
              ". Pass a wider dtype such as Long.");
}

uint64_t random_words(int64_t n, uint64_t range) {
  const uint64_t per = range != 0 && range <= (uint64_t{1} << 32) ? 1 : 2;
  return per * static_cast<uint64_t>(n);
}

double largest_finite(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return 65504.0;
    case c10::kBFloat16: return 3.3895313892515355e38;
    case c10::kFloat: return static_cast<double>(std::numeric_limits<float>::max());
    default: return std::numeric_limits<double>::max();
  }
}

double largest_below(c10::ScalarType dtype, double to) {
  constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
  switch (dtype) {
    case c10::kDouble: return std::nextafter(to, kMinusInf);
    case c10::kFloat: {
      float t = static_cast<float>(to);
      if (static_cast<double>(t) >= to) t = std::nextafter(t, -std::numeric_limits<float>::infinity());
      return t;
    }
    case c10::kHalf:
    case c10::kBFloat16: {
      // From `to` rounded to the dtype, one step toward -infinity on the
      // 16-bit pattern while the value is not below `to`.
      const bool half = dtype == c10::kHalf;
      auto value = [half](uint16_t bits) {
        return static_cast<double>(half ? static_cast<float>(c10::Half(bits, c10::Half::from_bits()))
                                        : static_cast<float>(c10::BFloat16(bits, c10::BFloat16::from_bits())));
      };
      const float f = static_cast<float>(to);
      uint16_t bits = half ? c10::Half(f).x : c10::BFloat16(f).x;
      while (value(bits) >= to) {
        bits = (bits & 0x7FFFu) == 0 ? uint16_t{0x8001}
               : (bits & 0x8000u) == 0 ? static_cast<uint16_t>(bits - 1)
                                       : static_cast<uint16_t>(bits + 1);
      }
      return value(bits);
    }
    default:
      TORCH_CHECK(false, "largest_below: expected a floating dtype, got ", dtype, ".");
  }
  return to;
}

void check_uniform_bounds(c10::ScalarType dtype, double from, double to) {
  TORCH_CHECK(std::isfinite(from) && std::isfinite(to),
              "uniform_: expects finite bounds, but got from=", from, " and to=", to,
              ". Pass finite numbers.");
  TORCH_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but "
              "found from=", from, " > to=", to, ". Pass from <= to.");
  TORCH_CHECK(to - from <= largest_finite(dtype), "uniform_: expects to - from <= ",
              largest_finite(dtype), " (the largest ", dtype, "), but found to=", to,
              " and from=", from, ". Pass a narrower range.");
}

void check_normal_std(double std) {
  TORCH_CHECK(std >= 0.0, "normal_: expects std >= 0.0, but found std ", std,
              ". Pass a non-negative standard deviation.");
}

void check_bernoulli_p(double p) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_: expects p to be in [0, 1], "
              "but got p=", p, ". Pass a probability.");
}

void check_bernoulli_p_tensor(const Tensor& self, const Tensor& p) {
  TORCH_CHECK(c10::isFloatingType(p.scalar_type()), "bernoulli_: expects p of a "
              "floating dtype, but got ", p.scalar_type(), ". Convert p to Float "
              "or Double.");
  const int64_t nd = self.dim();
  bool broadcasts = p.dim() <= nd;
  for (int64_t i = 0; broadcasts && i < p.dim(); ++i) {
    const int64_t ps = p.size(p.dim() - 1 - i);
    broadcasts = ps == 1 || ps == self.size(nd - 1 - i);
  }
  TORCH_CHECK(broadcasts, "bernoulli_: p of shape ", p.sizes(), " cannot be "
              "broadcast to self's shape ", self.sizes(), ". Pass p of a shape "
              "that broadcasts to self.");
}

void throw_bernoulli_probability(double value, int64_t i, c10::IntArrayRef shape) {
  C10_THROW_ERROR(Error, "bernoulli_: expects every probability in p to be in [0, 1], "
                  "but found ", value, " (element ", i, " of p broadcast to ", shape,
                  "). Pass probabilities.");
}

void check_dropout(const Tensor& input, double p) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "native_dropout: dropout probability has to "
              "be between 0 and 1, but got p=", p, ".");
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "native_dropout: expects "
              "a floating-point input, but got dtype ", input.scalar_type(),
              ". Convert the input to Float first.");
}

void check_dropout_backward(const Tensor& grad_output, const Tensor& mask) {
  TORCH_CHECK(mask.scalar_type() == c10::kBool, "native_dropout_backward: expects "
              "a Bool mask (as native_dropout returns), but got dtype ",
              mask.scalar_type(), ". Pass the mask from native_dropout.");
  TORCH_CHECK(c10::isFloatingType(grad_output.scalar_type()),
              "native_dropout_backward: expects a floating-point grad_output, "
              "but got dtype ", grad_output.scalar_type(), ".");
}

}  // namespace native
}  // namespace at
