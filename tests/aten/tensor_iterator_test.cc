// at::TensorIteratorBase, the device-agnostic half of elementwise kernels:
// broadcasting, type promotion, output allocation and out= resizing, the
// overlap checks and the iteration layout. A small host loop driver stands
// in for a backend's (it is what a backend supplies).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aten/Functions.h"
#include "aten/ScalarOps.h"
#include "aten/TensorIterator.h"
#include "aten/TypePromotion.h"
#include "c10/core/CPUAllocator.h"
#include "c10/util/Exception.h"
#include "tests/support/error_of.h"

namespace {

using c10::ScalarType;
using ember_test::errorOf;
using ::testing::HasSubstr;

// A loop driver over host memory: every run of the innermost dimension,
// serially, as a backend's for_each would hand them out.
class HostIterator : public at::TensorIteratorBase {
 public:
  explicit HostIterator(const at::TensorIteratorConfig& config)
      : at::TensorIteratorBase(config, c10::DeviceType::CPU) {}

  template <typename Loop>
  void for_each(Loop&& loop) {
    begin_run();
    const c10::IntArrayRef sizes = this->sizes();
    const size_t nd = sizes.size();
    const size_t nops = num_operands();
    std::vector<int64_t> index(nd, 0);
    for (int64_t done = 0; done < numel(); done += sizes[0]) {
      char* ptrs[kMaxOperands];
      int64_t inner[kMaxOperands];
      for (size_t k = 0; k < nops; ++k) {
        int64_t offset = 0;
        for (size_t d = 0; d < nd; ++d) offset += index[d] * strides(k)[d];
        ptrs[k] = data(k) + offset;
        inner[k] = strides(k)[0];
      }
      loop(ptrs, inner, sizes[0]);
      for (size_t d = 1; d < nd; ++d) {
        if (++index[d] < sizes[d]) break;
        index[d] = 0;
      }
    }
    finish_run();
  }
};

// out = a + b for float operands.
void add_floats(HostIterator& iter) {
  iter.for_each([](char** data, const int64_t* strides, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<float*>(data[0] + i * strides[0]) =
          *reinterpret_cast<const float*>(data[1] + i * strides[1]) +
          *reinterpret_cast<const float*>(data[2] + i * strides[2]);
    }
  });
}

std::vector<float> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous().to(at::kFloat);
  const float* p = static_cast<const float*>(c.data_ptr());
  return std::vector<float>(p, p + c.numel());
}

at::Tensor arange_f(int64_t n, std::vector<int64_t> shape) {
  return at::arange(n, at::TensorOptions().dtype(at::kFloat)).reshape(shape);
}

class WarningRecorder : public c10::WarningHandler {
 public:
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
  std::vector<std::string> messages;
};

// ---- broadcasting -------------------------------------------------------------------

TEST(TensorIteratorBase, BroadcastsShapesFromTheTrailingDimension) {
  at::Tensor out;
  at::Tensor a = arange_f(6, {2, 1, 3});
  at::Tensor b = arange_f(4, {4, 1}).mul(10);
  HostIterator iter(at::TensorIteratorConfig("add").add_output(out).add_input(a).add_input(b));
  EXPECT_EQ(iter.shape(), c10::IntArrayRef({2, 4, 3}));
  EXPECT_EQ(iter.numel(), 24);
  add_floats(iter);
  EXPECT_EQ(iter.output().sizes(), c10::IntArrayRef({2, 4, 3}));
  EXPECT_EQ(values(iter.output()), values(at::add(a, b)));
  EXPECT_EQ(values(iter.output())[4], 1.0f + 10.0f);  // a[0,0,1] + b[1,0]
}

TEST(TensorIteratorBase, BroadcastErrorsNameTheShapes) {
  at::Tensor out;
  at::Tensor a = at::zeros({2, 3});
  at::Tensor b = at::zeros({4});
  EXPECT_EQ(errorOf([&] {
              HostIterator iter(
                  at::TensorIteratorConfig("add").add_output(out).add_input(a).add_input(b));
            }),
            "add: shapes [2, 3] and [4] cannot be broadcast together; the trailing "
            "dimensions must match or be 1.");
  at::Tensor dst = at::zeros({2, 3});
  at::Tensor src = at::zeros({3, 3});
  EXPECT_EQ(errorOf([&] {
              HostIterator iter(at::TensorIteratorConfig("copy_")
                                    .add_output(dst)
                                    .add_input(src)
                                    .declare_static_shape(dst.sizes()));
            }),
            "copy_: an input of shape [3, 3] cannot be broadcast to the shape [2, 3]; "
            "the trailing dimensions must match or be 1.");
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] {
                HostIterator iter(
                    at::TensorIteratorConfig("mul").add_output(out).add_input(a).add_input(
                        undefined));
              }),
              HasSubstr("mul: input 1 is an undefined tensor"));
}

// ---- type promotion ---------------------------------------------------------------

at::Tensor of(ScalarType t, std::vector<int64_t> shape = {2}) {
  return at::ones(shape, at::TensorOptions().dtype(t));
}

at::Tensor wrapped(const c10::Scalar& s) { return at::wrapped_scalar_tensor(s, at::kCPU); }

ScalarType promoted(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor* operands[] = {&a, &b};
  return at::result_type(c10::ArrayRef<const at::Tensor*>(operands, 2));
}

TEST(TypePromotion, FollowsTorchResultType) {
  struct Case {
    at::Tensor a, b;
    ScalarType expected;
  };
  const Case cases[] = {
      {of(at::kInt), of(at::kLong, {}), at::kInt},          // 0-dim, same category
      {of(at::kInt), of(at::kDouble, {}), at::kDouble},     // 0-dim, higher category
      {of(at::kFloat), of(at::kDouble, {}), at::kFloat},
      {of(at::kHalf), wrapped(2.5), at::kHalf},
      {of(at::kBool), wrapped(2), at::kLong},
      {of(at::kInt), wrapped(2.5), at::kFloat},             // a floating Scalar is Float
      {of(at::kByte), of(at::kChar), at::kShort},
      {of(at::kBFloat16), of(at::kHalf), at::kFloat},
      {of(at::kBool), of(at::kBool), at::kBool},
      {of(at::kLong, {}), wrapped(2.5), at::kFloat},
      {of(at::kDouble, {}), wrapped(2), at::kDouble},
      {wrapped(true), wrapped(1), at::kLong},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(promoted(c.a, c.b), c.expected) << c.a.scalar_type() << "/" << c.a.dim()
                                              << " with " << c.b.scalar_type() << "/"
                                              << c.b.dim();
    // The op and the iterator agree: one implementation.
    EXPECT_EQ(at::result_type(c.a, c.b), c.expected);
    at::Tensor out;
    HostIterator iter(
        at::TensorIteratorConfig("add").add_output(out).add_input(c.a).add_input(c.b));
    EXPECT_EQ(iter.common_dtype(), c.expected);
    EXPECT_EQ(iter.output().scalar_type(), c.expected);
  }
  // Scalars through the state, as result_type.Scalar does.
  at::ResultTypeState state;
  state = at::update_result_type_state(of(at::kChar), state);
  state = at::update_result_type_state(c10::Scalar(int64_t{300}), state);
  EXPECT_EQ(at::result_type(state), at::kChar);
  EXPECT_EQ(at::result_type(at::ResultTypeState{}), ScalarType::Undefined);
}

TEST(TypePromotion, CanCastRefusesNarrowingCategories) {
  EXPECT_TRUE(at::can_cast(at::kInt, at::kFloat));
  EXPECT_TRUE(at::can_cast(at::kDouble, at::kHalf));
  EXPECT_TRUE(at::can_cast(at::kBool, at::kInt));
  EXPECT_TRUE(at::can_cast(at::kBool, at::kBool));
  EXPECT_FALSE(at::can_cast(at::kFloat, at::kLong));
  EXPECT_FALSE(at::can_cast(at::kBFloat16, at::kByte));
  EXPECT_FALSE(at::can_cast(at::kInt, at::kBool));
  EXPECT_FALSE(at::can_cast(at::kFloat, at::kBool));
}

TEST(TensorIteratorBase, ConfigOptionsChooseTheDtypes) {
  at::Tensor out;
  at::Tensor i = of(at::kInt);
  HostIterator to_float(at::TensorIteratorConfig("div")
                            .add_output(out)
                            .add_input(i)
                            .add_input(i)
                            .promote_integer_inputs_to_float(true));
  EXPECT_EQ(to_float.common_dtype(), at::kFloat);
  EXPECT_EQ(to_float.dtype(1), at::kFloat);

  at::Tensor cond = of(at::kBool);
  at::Tensor d = of(at::kDouble);
  at::Tensor out2;
  HostIterator where(at::TensorIteratorConfig("where")
                         .add_output(out2)
                         .add_input(cond)
                         .add_input(i)
                         .add_input(d)
                         .keep_input_dtype(0));
  EXPECT_EQ(where.common_dtype(), at::kDouble);
  EXPECT_EQ(where.dtype(1), at::kBool);
  EXPECT_EQ(where.dtype(2), at::kDouble);

  at::Tensor out3;
  HostIterator compare(at::TensorIteratorConfig("eq")
                           .add_output(out3)
                           .add_input(i)
                           .add_input(d)
                           .declare_static_dtype(at::kBool));
  EXPECT_EQ(compare.output().scalar_type(), at::kBool);
  EXPECT_EQ(compare.dtype(1), at::kDouble);
}

// ---- outputs ------------------------------------------------------------------------

TEST(TensorIteratorBase, ResizesOutputsAsResizeOutputWithAWarning) {
  WarningRecorder warnings;
  c10::WarningUtils::WarningHandlerGuard guard(&warnings);
  at::Tensor a = arange_f(6, {2, 3});

  at::Tensor empty_out = at::empty({0});
  {
    HostIterator iter(
        at::TensorIteratorConfig("add").add_output(empty_out).add_input(a).add_input(a));
    add_floats(iter);
    EXPECT_TRUE(iter.output().is_same(empty_out));
  }
  EXPECT_EQ(empty_out.sizes(), c10::IntArrayRef({2, 3}));
  EXPECT_EQ(values(empty_out), values(at::mul(a, 2)));
  EXPECT_TRUE(warnings.messages.empty());

  at::Tensor wrong = at::zeros({4});
  {
    HostIterator iter(
        at::TensorIteratorConfig("add").add_output(wrong).add_input(a).add_input(a));
    add_floats(iter);
  }
  EXPECT_EQ(wrong.sizes(), c10::IntArrayRef({2, 3}));
  EXPECT_EQ(values(wrong), values(at::mul(a, 2)));
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(warnings.messages[0],
            "add: an output with one or more elements was resized since it had shape "
            "[4], which does not match the required output shape [2, 3]. This is "
            "deprecated, as in PyTorch; to reuse an output, pass one of the right shape "
            "or resize it to zero elements first.");

  // An output that is also an input is never resized.
  at::Tensor small = arange_f(3, {3});
  EXPECT_THAT(errorOf([&] {
                HostIterator iter(
                    at::TensorIteratorConfig("add_").add_output(small).add_input(small).add_input(a));
              }),
              HasSubstr("add_: the output has shape [3] but the inputs broadcast to shape "
                        "[2, 3], and an output that is also an input cannot be resized."));
  // Nor one whose config says not to.
  at::Tensor fixed = at::zeros({4});
  EXPECT_THAT(errorOf([&] {
                HostIterator iter(at::TensorIteratorConfig("op")
                                      .add_output(fixed)
                                      .add_input(a)
                                      .resize_outputs(false));
              }),
              HasSubstr("op: the output has shape [4]"));
}

TEST(TensorIteratorBase, OutputsOfAnotherDtypeAreCastOrRefused) {
  at::Tensor a = arange_f(4, {4});
  at::Tensor wider = at::zeros({4}, at::TensorOptions().dtype(at::kDouble));
  {
    HostIterator iter(
        at::TensorIteratorConfig("add").add_output(wider).add_input(a).add_input(a));
    EXPECT_EQ(iter.dtype(0), at::kFloat);  // the loop writes a Float temporary
    add_floats(iter);
  }
  EXPECT_EQ(values(wider), (std::vector<float>{0, 2, 4, 6}));

  at::Tensor ints = at::zeros({4}, at::TensorOptions().dtype(at::kInt));
  EXPECT_EQ(errorOf([&] {
              HostIterator iter(
                  at::TensorIteratorConfig("add").add_output(ints).add_input(a).add_input(a));
            }),
            "add: result type Float can't be cast to the desired output type Int. Pass an "
            "output of dtype Float, or convert the inputs first.");
}

TEST(TensorIteratorBase, RefusesOperandsOnAnotherDevice) {
  // A tensor of PrivateUse1 (its memory is never read here).
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), 8, c10::GetCPUAllocator(), true));
  storage.unsafeGetStorageImpl()->mutable_data_ptr().unsafe_set_device(
      c10::Device(c10::kPrivateUse1));
  at::Tensor other(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), at::kFloat));
  other.unsafeGetTensorImpl()->set_sizes_contiguous({2});
  at::Tensor out;
  at::Tensor a = at::zeros({2});
  EXPECT_THAT(errorOf([&] {
                HostIterator iter(
                    at::TensorIteratorConfig("add").add_output(out).add_input(a).add_input(other));
              }),
              HasSubstr("add: expected all tensors on the CPU, but input 1 is on "));
}

// ---- overlap --------------------------------------------------------------------------

TEST(TensorIteratorBase, RefusesOutputsWithSharedElements) {
  at::Tensor a = arange_f(3, {3});
  at::Tensor expanded = at::zeros({1}).expand({3});
  EXPECT_EQ(errorOf([&] {
              HostIterator iter(
                  at::TensorIteratorConfig("add").add_output(expanded).add_input(a).add_input(a));
            }),
            "add: unsupported operation: more than one element of the written-to tensor "
            "refers to a single memory location. Please clone() the tensor before "
            "performing the operation.");
  // fill_ may write one location several times.
  HostIterator fill(
      at::TensorIteratorConfig("fill_").add_output(expanded).check_mem_overlap(false));
  EXPECT_EQ(fill.numel(), 3);
}

TEST(TensorIteratorBase, CopiesAnInputThatPartlyOverlapsTheOutput) {
  // out = buffer[1:5], inputs buffer[0:4]: without a copy, the loop would read
  // elements it has already written.
  at::Tensor buffer = arange_f(5, {5});
  at::Tensor out = buffer.slice(0, 1, 5);
  at::Tensor in = buffer.slice(0, 0, 4);
  at::Tensor zero = at::zeros({4});
  {
    HostIterator iter(
        at::TensorIteratorConfig("add").add_output(out).add_input(in).add_input(zero));
    EXPECT_NE(iter.data(1), static_cast<char*>(in.data_ptr()));  // read from a copy
    add_floats(iter);
  }
  EXPECT_EQ(values(buffer), (std::vector<float>{0, 0, 1, 2, 3}));
  // The exact same elements (a += b) are read in place.
  at::Tensor same = arange_f(4, {4});
  HostIterator inplace(
      at::TensorIteratorConfig("add_").add_output(same).add_input(same).add_input(zero));
  EXPECT_EQ(inplace.data(1), static_cast<char*>(same.data_ptr()));
}

// ---- layout -------------------------------------------------------------------------

TEST(TensorIteratorBase, CoalescesDimensionsAndSkipsEmptyIterations) {
  at::Tensor out;
  at::Tensor a = at::zeros({2, 3, 4});
  HostIterator contiguous(
      at::TensorIteratorConfig("test").add_output(out).add_input(a).add_input(a));
  EXPECT_EQ(contiguous.ndim(), 1u);
  EXPECT_TRUE(contiguous.is_contiguous());
  int calls = 0;
  contiguous.for_each([&](char**, const int64_t* strides, int64_t n) {
    ++calls;
    EXPECT_EQ(n, 24);
    EXPECT_EQ(strides[0], 4);
  });
  EXPECT_EQ(calls, 1);

  // A transposed input of a fresh output: two dimensions, the output's
  // contiguous one innermost.
  at::Tensor out2;
  at::Tensor t = at::zeros({4, 6}).t();
  HostIterator strided(at::TensorIteratorConfig("test").add_output(out2).add_input(t));
  EXPECT_EQ(strided.ndim(), 2u);
  EXPECT_FALSE(strided.is_contiguous());

  // Written in place, a transposed tensor is walked in memory order.
  at::Tensor tt = at::zeros({4, 6}).t();
  HostIterator inplace(at::TensorIteratorConfig("test").add_output(tt).add_input(tt));
  EXPECT_EQ(inplace.ndim(), 1u);
  EXPECT_TRUE(inplace.is_contiguous());

  at::Tensor out3;
  at::Tensor z = at::zeros({3, 0});
  HostIterator none(at::TensorIteratorConfig("test").add_output(out3).add_input(z));
  none.for_each([](char**, const int64_t*, int64_t) { ADD_FAILURE() << "called"; });
  EXPECT_EQ(none.output().sizes(), c10::IntArrayRef({3, 0}));

  at::Tensor out4;
  at::Tensor s = at::zeros({});
  HostIterator zero_dim(at::TensorIteratorConfig("test").add_output(out4).add_input(s));
  EXPECT_EQ(zero_dim.numel(), 1);
  EXPECT_EQ(zero_dim.output().dim(), 0);
}

TEST(TensorIteratorBase, ConvertsAOneElementInputIntoTheIterator) {
  at::Tensor out;
  at::Tensor a = arange_f(3, {3});
  at::Tensor two = wrapped(int64_t{2});
  HostIterator iter(at::TensorIteratorConfig("add").add_output(out).add_input(a).add_input(two));
  EXPECT_EQ(iter.dtype(2), at::kFloat);
  add_floats(iter);
  EXPECT_EQ(values(iter.output()), (std::vector<float>{2, 3, 4}));
}

TEST(TensorIteratorBase, CastScalarConvertsAsCopyDoes) {
  float f = 0;
  const int64_t big = 300;
  int8_t c = 0;
  at::cast_scalar(&c, at::kChar, &big, at::kLong);
  EXPECT_EQ(c, static_cast<int8_t>(44));  // wraps
  const double d = -2.75;
  int32_t i = 0;
  at::cast_scalar(&i, at::kInt, &d, at::kDouble);
  EXPECT_EQ(i, -2);  // toward zero
  bool b = false;
  at::cast_scalar(&b, at::kBool, &d, at::kDouble);
  EXPECT_TRUE(b);
  const c10::Half h(1.5f);
  at::cast_scalar(&f, at::kFloat, &h, at::kHalf);
  EXPECT_EQ(f, 1.5f);
}

// ---- CPU scalars on another device ------------------------------------------------------

// A PrivateUse1 tensor whose memory is host memory, so that a loop driver
// on the host can read it: a stand-in for a device tensor.
at::Tensor device_tensor(const std::vector<float>& v) {
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), v.size() * sizeof(float), c10::GetCPUAllocator(),
      true));
  storage.unsafeGetStorageImpl()->mutable_data_ptr().unsafe_set_device(
      c10::Device(c10::kPrivateUse1));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), at::kFloat));
  t.unsafeGetTensorImpl()->set_sizes_contiguous({static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), static_cast<float*>(t.data_ptr()));
  return t;
}

std::vector<float> device_values(const at::Tensor& t) {
  const float* p = static_cast<const float*>(t.data_ptr());
  return std::vector<float>(p, p + t.numel());
}

// The loop driver of a device whose kernels take CPU scalars by value.
class DeviceIterator : public at::TensorIteratorBase {
 public:
  explicit DeviceIterator(const at::TensorIteratorConfig& config)
      : at::TensorIteratorBase(config, c10::DeviceType::PrivateUse1) {}
  // out = a + b for float operands, reading a CPU scalar's value once.
  void add_floats() {
    begin_run();
    float scalar[kMaxOperands] = {};
    for (size_t k = 1; k < num_operands(); ++k) {
      if (is_cpu_scalar(k)) scalar[k] = *reinterpret_cast<const float*>(data(k));
    }
    auto read = [&](size_t k, int64_t i) {
      return is_cpu_scalar(k) ? scalar[k]
                              : *reinterpret_cast<const float*>(data(k) + i * strides(k)[0]);
    };
    for (int64_t i = 0; i < numel(); ++i) {
      *reinterpret_cast<float*>(data(0) + i * strides(0)[0]) = read(1, i) + read(2, i);
    }
    finish_run();
  }
};

TEST(TensorIteratorBase, TakesCPUScalarsIntoAnotherDevicesIteration) {
  const at::Tensor a = device_tensor({1, 2, 3});
  const at::Tensor out = device_tensor({0, 0, 0});
  // A wrapped number (a Scalar overload's operand) promotes as a Python number.
  const at::Tensor two = wrapped(int64_t{2});
  DeviceIterator iter(at::TensorIteratorConfig("add").add_output(out).add_input(a)
                          .add_input(two).allow_cpu_scalars(true));
  EXPECT_FALSE(iter.is_cpu_scalar(1));
  EXPECT_TRUE(iter.is_cpu_scalar(2));
  EXPECT_EQ(iter.dtype(2), at::kFloat);  // converted into the iterator
  EXPECT_EQ(iter.device(), c10::Device(c10::kPrivateUse1));
  iter.add_floats();
  EXPECT_EQ(device_values(out), (std::vector<float>{3, 4, 5}));

  // A 0-dim CPU tensor first, of a higher category: it decides the dtype.
  const at::Tensor half = at::full({}, 0.5, at::TensorOptions().dtype(at::kDouble));
  DeviceIterator first(at::TensorIteratorConfig("add").add_output(out).add_input(half)
                           .add_input(a).allow_cpu_scalars(true));
  EXPECT_TRUE(first.is_cpu_scalar(1));
  EXPECT_EQ(first.common_dtype(), at::kFloat);  // 0-dim Double does not widen Float
  first.add_floats();
  EXPECT_EQ(device_values(out), (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(TensorIteratorBase, RefusesCPUTensorsOnAnotherDeviceUnlessScalarsAreAllowed) {
  const at::Tensor a = device_tensor({1, 2, 3});
  const at::Tensor out = device_tensor({0, 0, 0});
  const at::Tensor scalar = at::full({}, 2.0);
  // Without the option a CPU scalar is refused like any CPU tensor.
  EXPECT_THAT(errorOf([&] {
                DeviceIterator iter(
                    at::TensorIteratorConfig("mul").add_output(out).add_input(a).add_input(scalar));
              }),
              HasSubstr("mul: expected all tensors on a privateuseone device, but input 1 is "
                        "on cpu"));
  // With it, only 0-dim CPU inputs are taken.
  const at::Tensor one_dim = at::full({1}, 2.0);
  EXPECT_THAT(errorOf([&] {
                DeviceIterator iter(at::TensorIteratorConfig("mul").add_output(out).add_input(a)
                                        .add_input(one_dim).allow_cpu_scalars(true));
              }),
              HasSubstr("but input 1 is on cpu"));
  at::Tensor cpu_out = at::full({}, 0.0);
  EXPECT_THAT(errorOf([&] {
                DeviceIterator iter(at::TensorIteratorConfig("mul").add_output(cpu_out)
                                        .add_input(a).add_input(scalar).allow_cpu_scalars(true));
              }),
              HasSubstr("but output 0 is on cpu"));
  // Some operand must be on the device.
  at::Tensor none;
  EXPECT_EQ(errorOf([&] {
              DeviceIterator iter(at::TensorIteratorConfig("mul").add_output(none)
                                      .add_input(scalar).add_input(scalar)
                                      .allow_cpu_scalars(true));
            }),
            "mul: expected a tensor on a privateuseone device among the operands, but all "
            "are 0-dim CPU tensors. Move one of them to that device first (tensor.to()).");
}

}  // namespace
