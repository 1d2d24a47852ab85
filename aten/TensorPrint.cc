// Tensor::toString and operator<<: PyTorch's C++ print format.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "aten/Functions.h"
#include "aten/Tensor.h"
#include "c10/core/DeviceType.h"
#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"

namespace at {
namespace {

// Note [Print format]
// ~~~~~~~~~~~~~~~~~~~
// libtorch prints a tensor's values with one format chosen from all of them
// (the finite ones), inherited from Lua Torch:
//   - every finite value integral: default float notation, width one more
//     than the digits of the largest magnitude (scientific, width 11, when
//     that has more than 9 digits);
//   - otherwise, with e_min/e_max the decimal exponents (floor(log10|x|) + 1)
//     of the smallest and largest non-zero magnitudes:
//       e_max - e_min > 4          scientific, 4 digits, width 11 (12 when
//                                  an exponent has three digits);
//       e_max > 5 or e_max < 0     fixed, 4 decimals, width 7, every value
//                                  divided by 10^(e_max - 1), printed once
//                                  above the values as "<scale> *";
//       else                       fixed, 4 decimals, width e_max + 6 (7
//                                  when e_max is 0).
// Values are separated by one space; a 1-d tensor prints one value per
// line; a 2-d one prints rows, split into blocks of columns ("Columns 1 to
// 9") when a row is longer than the line (80 characters); higher dims print
// each matrix under a "(i,j,.,.) = " header (1-based), indented by one. A
// 0-dim tensor prints its value in default notation. Then comes the type
// line "[ CPUFloatType{2,3} ]".
struct Format {
  std::ios_base::fmtflags flags;
  int precision;
  int width;
  double scale;  // 1 when there is no scale line
};

Format choose_format(const std::vector<double>& v) {
  bool integral = true;
  bool any = false;
  double lo = 0, hi = 0;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    const double a = std::fabs(x);
    if (!any) {
      lo = hi = a;
      any = true;
    }
    lo = std::min(lo, a);
    hi = std::max(hi, a);
    if (std::ceil(x) != x) integral = false;
  }
  const auto exponent = [](double a) { return a == 0 ? 1 : static_cast<int>(std::floor(std::log10(a))) + 1; };
  const int e_min = any ? exponent(lo) : 1;
  const int e_max = any ? exponent(hi) : 1;
  const auto fixed = std::ios_base::fixed;
  const auto sci = std::ios_base::scientific;
  const std::ios_base::fmtflags plain{};
  if (integral) {
    if (e_max > 9) return {sci, 4, 11, 1};
    return {plain, 6, e_max + 1, 1};
  }
  if (e_max - e_min > 4) {
    const bool three_digit = std::abs(e_max) > 99 || std::abs(e_min) > 99;
    return {sci, 4, three_digit ? 12 : 11, 1};
  }
  if (e_max > 5 || e_max < 0) return {fixed, 4, 7, std::pow(10.0, e_max - 1)};
  return {fixed, 4, e_max == 0 ? 7 : e_max + 6, 1};
}

void print_scale(std::ostream& out, double scale) {
  out.flags(std::ios_base::fmtflags{});  // default notation, as libtorch
  out.precision(6);
  out << scale << " *\n";
}

void print_value(std::ostream& out, const Format& f, double x) {
  out.flags(f.flags);
  out.precision(f.precision);
  out << std::setw(f.width) << x / f.scale;
}

// Rows x cols values starting at v[offset], row-major.
void print_matrix(std::ostream& out, const Format& f, const std::vector<double>& v,
                  size_t offset, int64_t rows, int64_t cols, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  const int64_t per_line = std::max<int64_t>((80 - indent) / (f.width + 1), 1);
  for (int64_t first = 0; first < cols; first += per_line) {
    const int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0) out << "\n";
      out << pad << "Columns " << first + 1 << " to " << last + 1 << "\n";
    }
    if (f.scale != 1) {
      out << pad;
      print_scale(out, f.scale);
    }
    for (int64_t r = 0; r < rows; ++r) {
      out << pad;
      for (int64_t c = first; c <= last; ++c) {
        if (c != first) out << " ";
        print_value(out, f, v[offset + static_cast<size_t>(r * cols + c)]);
      }
      out << "\n";
    }
  }
}

template <typename T>
double as_double(const char* p) {
  return static_cast<double>(*reinterpret_cast<const T*>(p));
}

// The values in row-major order, read through the strides (no dispatch:
// printing works wherever the memory is on the host).
std::vector<double> values_of(const Tensor& t) {
  double (*read)(const char*) = nullptr;
  switch (t.scalar_type()) {
#define EMBER_PRINT_READ_(cpp, name) \
  case ScalarType::name:             \
    read = &as_double<cpp>;          \
    break;
    C10_FORALL_SCALAR_TYPES(EMBER_PRINT_READ_)
#undef EMBER_PRINT_READ_
    default:
      TORCH_CHECK(false, "print: unsupported dtype ", t.scalar_type(), ".");
  }
  std::vector<double> v(static_cast<size_t>(t.numel()));
  std::vector<int64_t> index(static_cast<size_t>(t.dim()), 0);
  const char* base = static_cast<const char*>(t.data_ptr());
  const auto itemsize = static_cast<int64_t>(t.itemsize());
  for (double& x : v) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[static_cast<size_t>(d)] * t.stride(d);
    x = read(base + offset * itemsize);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < t.size(d)) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return v;
}

}  // namespace

std::string Tensor::toString() const {
  if (!defined()) return "[ Tensor (undefined) ]";
  std::ostringstream out;
  if (numel() > 0) {
    // Another device's elements are read from a copy on the CPU.
    const std::vector<double> v = values_of(device().is_cpu() ? *this : to(kCPU));
    if (dim() == 0) {
      out << v[0] << "\n";
    } else {
      const Format f = choose_format(v);
      if (dim() == 1) {
        if (f.scale != 1) print_scale(out, f.scale);
        for (double x : v) {
          print_value(out, f, x);
          out << "\n";
        }
      } else if (dim() == 2) {
        print_matrix(out, f, v, 0, size(0), size(1), 0);
      } else {
        const int64_t rows = size(-2), cols = size(-1);
        const int64_t matrices = numel() / (rows * cols);
        std::vector<int64_t> index(static_cast<size_t>(dim() - 2), 0);
        for (int64_t m = 0; m < matrices; ++m) {
          if (m != 0) out << "\n";
          out << "(";
          for (int64_t i : index) out << i + 1 << ",";
          out << ".,.) = \n";
          print_matrix(out, f, v, static_cast<size_t>(m * rows * cols), rows, cols, 1);
          for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
            if (++index[static_cast<size_t>(d)] < size(d)) break;
            index[static_cast<size_t>(d)] = 0;
          }
        }
      }
    }
  }
  out.flags(std::ios_base::fmtflags{});
  out << "[ " << c10::DeviceTypeName(device().type()) << c10::toString(scalar_type()) << "Type{";
  for (int64_t d = 0; d < dim(); ++d) out << (d ? "," : "") << size(d);
  out << "} ]";
  return out.str();
}

}  // namespace at
