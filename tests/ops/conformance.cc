#include "tests/ops/conformance.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "c10/util/BFloat16.h"
#include "c10/util/Half.h"
#include "registration/cpu_capability.h"

namespace ember_conformance {

const Dtypes& all_dtypes() {
  static const Dtypes d = {kBool, kByte, kChar, kShort, kInt, kLong,
                           kHalf, kBFloat16, kFloat, kDouble};
  return d;
}
const Dtypes& floating_dtypes() {
  static const Dtypes d = {kHalf, kBFloat16, kFloat, kDouble};
  return d;
}
const Dtypes& integral_dtypes() {
  static const Dtypes d = {kByte, kChar, kShort, kInt, kLong};
  return d;
}
const Dtypes& integral_and_bool_dtypes() {
  static const Dtypes d = {kBool, kByte, kChar, kShort, kInt, kLong};
  return d;
}

// ---- devices ------------------------------------------------------------------

std::vector<c10::Device> devices_under_test() {
  std::vector<c10::Device> devices = {c10::Device(c10::DeviceType::CPU)};
  const char* env = std::getenv("EMBER_CONFORMANCE_DEVICES");
  if (env == nullptr) return devices;
  std::stringstream in(env);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) devices.emplace_back(item);
  }
  return devices;
}

std::string device_unusable(c10::Device device) {
  if (device.is_cpu()) return "";
  static std::mutex mutex;
  static std::map<std::string, std::string> reasons;  // by device
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = reasons.find(device.str());
  if (found != reasons.end()) return found->second;
  std::string why;
  try {
    (void)at::empty({1}, at::TensorOptions().device(device));
  } catch (const c10::Error& e) {
    why = e.what_without_backtrace();
  }
  reasons.emplace(device.str(), why);
  return why;
}

std::string device_test_name(const ::testing::TestParamInfo<c10::Device>& info) {
  std::string name;
  for (char c : info.param.str()) {
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
  }
  return name;
}

// ---- references ------------------------------------------------------------------

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Ref::Ref(std::vector<int64_t> s, std::vector<double> values)
    : shape(std::move(s)), v(std::move(values)) {
  EXPECT_EQ(numel_of(shape), numel()) << "Ref: values do not fill the shape";
}

namespace {
int64_t linear_index(const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& index) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
  return linear;
}
}  // namespace

double Ref::at(const std::vector<int64_t>& index) const {
  return v[static_cast<size_t>(linear_index(shape, index))];
}
double& Ref::at(const std::vector<int64_t>& index) {
  return v[static_cast<size_t>(linear_index(shape, index))];
}

std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = i % shape[d];
    i /= shape[d];
  }
  return index;
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a,
                                      const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) {
      ADD_FAILURE() << "broadcast_shapes: shapes do not broadcast";
      return {};
    }
    out[n - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

Ref broadcast_to(const Ref& r, const std::vector<int64_t>& shape) {
  Ref out(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  const size_t lead = shape.size() - r.shape.size();
  std::vector<int64_t> src(r.shape.size());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const std::vector<int64_t> index = unravel(i, shape);
    for (size_t d = 0; d < r.shape.size(); ++d) {
      src[d] = r.shape[d] == 1 ? 0 : index[lead + d];
    }
    out.v[static_cast<size_t>(i)] = r.at(src);
  }
  return out;
}

double as_dtype(double v, ScalarType t) {
  if (t == kBool) return v != 0 ? 1 : 0;
  if (c10::isIntegralType(t, /*includeBool=*/false)) {
    if (!std::isfinite(v)) return 0;  // undefined in C++ and in PyTorch
    const auto i = static_cast<int64_t>(v);
    switch (t) {
      case ScalarType::Byte: return static_cast<uint8_t>(i);
      case ScalarType::Char: return static_cast<int8_t>(i);
      case ScalarType::Short: return static_cast<int16_t>(i);
      case ScalarType::Int: return static_cast<int32_t>(i);
      default: return static_cast<double>(i);
    }
  }
  switch (t) {
    case ScalarType::Half:
      return static_cast<float>(c10::Half(static_cast<float>(v)));
    case ScalarType::BFloat16:
      return static_cast<float>(c10::BFloat16(static_cast<float>(v)));
    case ScalarType::Float:
      return static_cast<float>(v);
    default:
      return v;
  }
}

Ref as_dtype(const Ref& r, ScalarType t) {
  return map(r, [t](double x) { return as_dtype(x, t); });
}

Ref map(const Ref& a, const std::function<double(double)>& f) {
  Ref out = a;
  for (double& x : out.v) x = f(x);
  return out;
}

Ref zip(const Ref& a, const Ref& b, const std::function<double(double, double)>& f) {
  const std::vector<int64_t> shape = broadcast_shapes(a.shape, b.shape);
  const Ref x = broadcast_to(a, shape);
  const Ref y = broadcast_to(b, shape);
  Ref out = x;
  for (size_t i = 0; i < out.v.size(); ++i) out.v[i] = f(x.v[i], y.v[i]);
  return out;
}

ScalarType result_type(ScalarType a, int64_t a_dim, ScalarType b, int64_t b_dim) {
  return result_type({{a, a_dim}, {b, b_dim}});
}

// ---- tensors ----------------------------------------------------------------------------

namespace {

void store(void* p, ScalarType t, double v) {
  switch (t) {
    case ScalarType::Bool: *static_cast<bool*>(p) = v != 0; return;
    case ScalarType::Byte: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); return;
    case ScalarType::Char: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); return;
    case ScalarType::Short: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); return;
    case ScalarType::Int: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); return;
    case ScalarType::Long: *static_cast<int64_t*>(p) = static_cast<int64_t>(v); return;
    case ScalarType::Half:
      *static_cast<c10::Half*>(p) = c10::Half(static_cast<float>(v));
      return;
    case ScalarType::BFloat16:
      *static_cast<c10::BFloat16*>(p) = c10::BFloat16(static_cast<float>(v));
      return;
    case ScalarType::Float: *static_cast<float*>(p) = static_cast<float>(v); return;
    case ScalarType::Double: *static_cast<double*>(p) = v; return;
    default: ADD_FAILURE() << "store: dtype " << t; return;
  }
}

double load(const void* p, ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return *static_cast<const bool*>(p) ? 1 : 0;
    case ScalarType::Byte: return *static_cast<const uint8_t*>(p);
    case ScalarType::Char: return *static_cast<const int8_t*>(p);
    case ScalarType::Short: return *static_cast<const int16_t*>(p);
    case ScalarType::Int: return *static_cast<const int32_t*>(p);
    case ScalarType::Long: return static_cast<double>(*static_cast<const int64_t*>(p));
    case ScalarType::Half: return static_cast<float>(*static_cast<const c10::Half*>(p));
    case ScalarType::BFloat16:
      return static_cast<float>(*static_cast<const c10::BFloat16*>(p));
    case ScalarType::Float: return *static_cast<const float*>(p);
    case ScalarType::Double: return *static_cast<const double*>(p);
    default: ADD_FAILURE() << "load: dtype " << t; return 0;
  }
}

bool is_cpu(const at::Tensor& t) { return t.device().type() == c10::DeviceType::CPU; }

// Writes r (which has t's shape) into t through t's strides. t on another
// device is filled by copy_ from a contiguous CPU tensor.
void fill_from(const at::Tensor& t, const Ref& r) {
  if (!is_cpu(t)) {
    at::Tensor dst = t;
    dst.copy_(make_tensor(r, t.scalar_type(), c10::Device(c10::DeviceType::CPU)));
    return;
  }
  char* base = static_cast<char*>(t.data_ptr());
  const auto item = static_cast<int64_t>(c10::elementSize(t.scalar_type()));
  const std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  for (int64_t i = 0; i < r.numel(); ++i) {
    const std::vector<int64_t> index = unravel(i, r.shape);
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    store(base + offset * item, t.scalar_type(), r.v[static_cast<size_t>(i)]);
  }
}

}  // namespace

at::Tensor make_tensor(const Ref& r, ScalarType dtype, c10::Device device) {
  at::Tensor t = at::empty(r.shape, at::TensorOptions().dtype(dtype).device(device));
  fill_from(t, r);
  return t;
}

Ref to_ref(const at::Tensor& t) {
  at::Tensor host = t;
  if (!is_cpu(t)) {
    host = at::empty(t.sizes(), at::TensorOptions().dtype(t.scalar_type()));
    host.copy_(t);
  }
  const std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  Ref r(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  if (r.numel() == 0) return r;
  const char* base = static_cast<const char*>(host.data_ptr());
  const auto item = static_cast<int64_t>(c10::elementSize(host.scalar_type()));
  const std::vector<int64_t> strides(host.strides().begin(), host.strides().end());
  for (int64_t i = 0; i < r.numel(); ++i) {
    const std::vector<int64_t> index = unravel(i, shape);
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    r.v[static_cast<size_t>(i)] = load(base + offset * item, host.scalar_type());
  }
  return r;
}

Ref random_ref(const std::vector<int64_t>& shape, ScalarType dtype, Domain domain,
               uint64_t seed) {
  std::mt19937_64 gen(seed);
  Ref r(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  const bool integral = c10::isIntegralType(dtype, /*includeBool=*/true);
  double lo = domain.lo, hi = domain.hi;
  if (dtype == kBool) {
    lo = 0;
    hi = 1;
  } else if (dtype == kByte) {
    lo = std::max(lo, 0.0);
    hi = std::max(hi, lo);
  }
  for (double& x : r.v) {
    if (integral) {
      std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(std::ceil(lo)),
                                               static_cast<int64_t>(std::floor(hi)));
      x = static_cast<double>(d(gen));
    } else {
      std::uniform_real_distribution<double> d(lo, hi);
      x = d(gen);
    }
    x = as_dtype(x, dtype);
  }
  return r;
}

const std::vector<std::vector<int64_t>>& test_shapes() {
  static const std::vector<std::vector<int64_t>> shapes = {
      {}, {0, 3}, {7}, {3, 4}, {2, 3, 5}};
  return shapes;
}

namespace {
std::string shape_name(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + "]";
}
}  // namespace

std::vector<Case> layouts(const std::vector<int64_t>& shape, ScalarType dtype,
                          c10::Device device, Domain domain, uint64_t seed) {
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  const std::string name = shape_name(shape);
  const int64_t n = static_cast<int64_t>(shape.size());
  std::vector<Case> cases;

  const Ref r = random_ref(shape, dtype, domain, seed);
  cases.push_back({name + " contiguous", make_tensor(r, dtype, device), r});

  if (n >= 2) {  // column-major strides
    std::vector<int64_t> strides(shape.size());
    int64_t s = 1;
    for (int64_t d = 0; d < n; ++d) {
      strides[d] = s;
      s *= std::max<int64_t>(shape[d], 1);
    }
    at::Tensor t = at::empty_strided(shape, strides, opts);
    fill_from(t, r);
    cases.push_back({name + " transposed", t, r});
  }

  if (numel_of(shape) > 0) {
    // Every other element along the last dim, from offset 1 of a buffer.
    std::vector<int64_t> strides(shape.size());
    int64_t s = 2;
    for (int64_t d = n - 1; d >= 0; --d) {
      strides[d] = s;
      s *= shape[d];
    }
    at::Tensor buffer = at::empty({1 + 2 * numel_of(shape)}, opts);
    at::Tensor t = buffer.as_strided(shape, strides, 1);
    fill_from(t, r);
    cases.push_back({name + (n == 0 ? " offset" : " sliced"), t, r});
  }

  if (n >= 1 && shape[0] > 1) {
    std::vector<int64_t> small = shape;
    small[0] = 1;
    const Ref base = random_ref(small, dtype, domain, seed + 1);
    at::Tensor t = make_tensor(base, dtype, device).expand(shape);
    cases.push_back({name + " expanded", t, broadcast_to(base, shape)});
  }
  return cases;
}

// ---- comparison ---------------------------------------------------------------------

Tol default_tol(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half: return {2e-3, 1e-3};
    case ScalarType::BFloat16: return {1.6e-2, 1e-2};
    case ScalarType::Float: return {1e-5, 1e-6};
    case ScalarType::Double: return {1e-12, 1e-12};
    default: return {0, 0};
  }
}

::testing::AssertionResult close(const at::Tensor& actual, const Ref& expected,
                                 ScalarType dtype, Tol tol) {
  if (!actual.defined()) return ::testing::AssertionFailure() << "result is undefined";
  const std::vector<int64_t> shape(actual.sizes().begin(), actual.sizes().end());
  if (shape != expected.shape) {
    return ::testing::AssertionFailure() << "shape " << shape_name(shape)
                                         << ", expected " << shape_name(expected.shape);
  }
  if (actual.scalar_type() != dtype) {
    return ::testing::AssertionFailure() << "dtype " << actual.scalar_type()
                                         << ", expected " << dtype;
  }
  const Ref got = to_ref(actual);
  std::ostringstream bad;
  int mismatches = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double a = got.v[static_cast<size_t>(i)];
    const double e = as_dtype(expected.v[static_cast<size_t>(i)], dtype);
    bool ok;
    if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = a == e;
    } else {
      ok = std::fabs(a - e) <= tol.atol + tol.rtol * std::fabs(e);
    }
    if (!ok && ++mismatches <= 5) {
      bad << "\n  at " << shape_name(unravel(i, shape)) << ": got " << a
          << ", expected " << e;
    }
  }
  if (mismatches > 0) {
    return ::testing::AssertionFailure() << mismatches << " of " << got.numel()
                                         << " elements differ:" << bad.str();
  }
  return ::testing::AssertionSuccess();
}

// ---- checks ------------------------------------------------------------------------------

ScalarType same_dtype(ScalarType t) { return t; }
ScalarType to_float(ScalarType t) {
  return c10::isIntegralType(t, /*includeBool=*/true) ? kFloat : t;
}
ScalarType to_bool(ScalarType) { return kBool; }

void check_unary(const std::string& name, const UnaryOp& op,
                 const std::function<double(double)>& ref, const Dtypes& dtypes,
                 Domain domain, c10::Device device, const ResultDtype& result,
                 std::optional<Tol> tol) {
  uint64_t seed = 1;
  for (ScalarType dtype : dtypes) {
    const ScalarType out_dtype = result(dtype);
    for (const auto& shape : test_shapes()) {
      for (const Case& c : layouts(shape, dtype, device, domain, seed++)) {
        SCOPED_TRACE(name + " on " + c10::toString(dtype) + " " + c.name);
        at::Tensor out;
        try {
          out = op(c.tensor);
        } catch (const c10::Error& e) {
          ADD_FAILURE() << "threw: " << e.what_without_backtrace();
          continue;
        }
        EXPECT_TRUE(close(out, map(c.ref, ref), out_dtype,
                          tol.value_or(default_tol(out_dtype))));
        EXPECT_TRUE(close(c.tensor, c.ref, dtype, Tol{0, 0})) << "the input changed";
      }
    }
  }
}

const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>&
binary_shape_pairs() {
  static const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> p = {
      {{3, 4}, {3, 4}}, {{3, 4}, {4}},      {{4}, {3, 4}},    {{3, 1}, {1, 4}},
      {{}, {2, 3}},     {{2, 3}, {}},       {{}, {}},         {{0, 4}, {4}},
      {{2, 3, 4}, {3, 1}}};
  return p;
}

void check_binary(const std::string& name, const BinaryOp& op,
                  const std::function<double(double, double)>& ref,
                  const std::vector<std::pair<ScalarType, ScalarType>>& dtype_pairs,
                  Domain a_domain, Domain b_domain, c10::Device device,
                  const ResultDtype& result, std::optional<Tol> tol) {
  uint64_t seed = 1000;
  for (const auto& [da, db] : dtype_pairs) {
    for (const auto& [sa, sb] : binary_shape_pairs()) {
      const ScalarType out_dtype =
          result(result_type(da, static_cast<int64_t>(sa.size()), db,
                             static_cast<int64_t>(sb.size())));
      const std::vector<Case> as = layouts(sa, da, device, a_domain, seed++);
      const std::vector<Case> bs = layouts(sb, db, device, b_domain, seed++);
      for (const Case& a : as) {
        for (const Case& b : bs) {
          SCOPED_TRACE(name + " on " + c10::toString(da) + " " + a.name + " and " +
                       c10::toString(db) + " " + b.name);
          at::Tensor out;
          try {
            out = op(a.tensor, b.tensor);
          } catch (const c10::Error& e) {
            ADD_FAILURE() << "threw: " << e.what_without_backtrace();
            continue;
          }
          EXPECT_TRUE(close(out, zip(a.ref, b.ref, ref), out_dtype,
                            tol.value_or(default_tol(out_dtype))));
        }
      }
    }
  }
}

std::vector<std::pair<ScalarType, ScalarType>> same_pairs(const Dtypes& dtypes) {
  std::vector<std::pair<ScalarType, ScalarType>> pairs;
  for (ScalarType t : dtypes) pairs.emplace_back(t, t);
  return pairs;
}

std::vector<std::pair<ScalarType, ScalarType>> mixed_pairs() {
  return {{kInt, kFloat},  {kLong, kDouble},    {kBool, kInt},   {kHalf, kFloat},
          {kByte, kChar},  {kBFloat16, kHalf},  {kFloat, kDouble}};
}

}  // namespace ember_conformance

namespace {

// The suite runs once per CPU plugin build (tests/ops/BUILD.bazel sets
// EMBER_CPU_CAPABILITY): where this CPU lacks the capability asked for, every
// test is skipped with the reason instead of failing at the first op. See
// Note [CPU capability] in registration/cpu_capability.cc.
class CpuCapabilityEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    try {
      c10::cpu_capability_wanted();
    } catch (const c10::Error& e) {
      const std::string why = e.what_without_backtrace();
      // Only a capability this CPU lacks is a reason to skip; a bad value fails.
      if (why.find("this CPU supports only up to") == std::string::npos) FAIL() << why;
      GTEST_SKIP() << why;
    }
  }
};

const auto* const kCpuCapabilityEnvironment =
    ::testing::AddGlobalTestEnvironment(new CpuCapabilityEnvironment);

}  // namespace
