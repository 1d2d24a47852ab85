// The basic names libtorch programs use and Ember lacked (issue 15): each
// test writes the code as a libtorch user would and checks what it does,
// and the message of each error path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <ATen/Dispatch.h>
#include <torch/all.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "c10/core/CPUAllocator.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "." + std::to_string(::getpid());
}

// ---- c10::IValue::toTensor / toTensorVector / toTensorList ----------------

TEST(IValueCompat, ToTensorReturnsAtTensorSharingTheImpl) {
  torch::Tensor t = torch::tensor({1.5, 2.5});
  c10::IValue iv(t);
  torch::Tensor back = iv.toTensor();
  EXPECT_TRUE(back.is_same(t));
  EXPECT_DOUBLE_EQ(iv.toTensor()[1].item<double>(), 2.5);
  EXPECT_EQ(t.use_count(), 3u);  // t, back, the IValue
  torch::Tensor moved = std::move(iv).toTensor();
  EXPECT_TRUE(moved.is_same(t));
  EXPECT_TRUE(iv.isNone());  // NOLINT(bugprone-use-after-move)
}

TEST(IValueCompat, BoxedKernelStyleStackAccess) {
  torch::jit::Stack stack;
  torch::jit::push(stack, torch::ones({2}), torch::full({2}, 3.0));
  torch::Tensor sum = stack[0].toTensor() + stack[1].toTensor();
  EXPECT_DOUBLE_EQ(sum.sum().item<double>(), 8.0);
}

TEST(IValueCompat, ToTensorVectorAndListReturnAtTensors) {
  std::vector<torch::Tensor> ts{torch::zeros({1}), torch::ones({2})};
  c10::IValue iv(ts);
  std::vector<torch::Tensor> v = iv.toTensorVector();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_TRUE(v[1].is_same(ts[1]));
  std::vector<at::Tensor> l = iv.toTensorList();
  EXPECT_TRUE(l[0].is_same(ts[0]));
  std::vector<at::Tensor> taken = std::move(iv).toTensorVector();
  EXPECT_EQ(taken[1].numel(), 2);
  EXPECT_TRUE(iv.isNone());  // NOLINT(bugprone-use-after-move)
}

TEST(IValueCompat, WrongTagErrorsNameTheAccessor) {
  EXPECT_THAT(errorOf([] { c10::IValue(3).toTensor(); }),
              HasSubstr("IValue::toTensor: expected a Tensor but got an int."));
  EXPECT_THAT(errorOf([] { c10::IValue(2.5).toTensorVector(); }),
              HasSubstr("IValue::toTensorVector: expected a Tensor list but got a double."));
  EXPECT_THAT(errorOf([] { c10::IValue(true).toTensorList(); }),
              HasSubstr("IValue::toTensorList: expected a Tensor list but got a bool."));
}

// ---- c10::List ------------------------------------------------------------------

TEST(ListCompat, CopiesShareElementsAndCopyDoesNot) {
  c10::List<int64_t> sizes({2, 3});
  sizes.push_back(4);
  c10::List<int64_t> alias = sizes;
  alias.set(0, 5);
  alias[1] = 7;
  EXPECT_EQ(sizes.get(0), 5);
  EXPECT_EQ(static_cast<int64_t>(sizes[1]), 7);
  EXPECT_TRUE(alias.is(sizes));
  c10::List<int64_t> own = sizes.copy();
  own.set(2, 9);
  EXPECT_EQ(sizes.get(2), 4);
  EXPECT_FALSE(own.is(sizes));
  EXPECT_TRUE(sizes == c10::List<int64_t>({5, 7, 4}));
  int64_t total = 0;
  for (int64_t v : sizes) total += v;
  EXPECT_EQ(total, 16);
  EXPECT_EQ(sizes.extract(0), 5);
  EXPECT_EQ(sizes.vec(), (std::vector<int64_t>{0, 7, 4}));
  EXPECT_THAT(errorOf([&] { sizes.get(3); }),
              HasSubstr("c10::List::get: index 3 is out of range for a list of 3 elements."));
  EXPECT_THAT(errorOf([] { c10::List<double>().pop_back(); }),
              HasSubstr("c10::List::pop_back: the list is empty."));
}

// A boxed kernel as libtorch users write them: lists in and out of the stack.
void scaled_sum_boxed(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  c10::List<at::Tensor> tensors = (*stack)[0].toTensorList();
  c10::List<double> scales = (*stack)[1].toDoubleVector();
  TORCH_CHECK(tensors.size() == scales.size(), "scaled_sum: ", tensors.size(), " tensors but ",
              scales.size(), " scales.");
  at::Tensor sum = at::zeros_like(tensors.get(0));
  for (size_t i = 0; i < tensors.size(); ++i) sum += tensors.get(i) * scales.get(i);
  c10::List<int64_t> sizes(sum.sizes());
  torch::jit::drop(*stack, 2);
  torch::jit::push(*stack, sum, sizes);
}

TEST(ListCompat, BoxedKernelReadsAndPushesLists) {
  torch::Library def(torch::Library::DEF, "compat_list", std::nullopt, __FILE__, __LINE__);
  def.def("scaled_sum(Tensor[] xs, float[] scales) -> (Tensor, int[])");
  torch::Library cpu(torch::Library::IMPL, "compat_list", c10::DispatchKey::CPU, __FILE__,
                     __LINE__);
  cpu.impl("scaled_sum", torch::CppFunction::makeFromBoxedFunction<&scaled_sum_boxed>());
  auto op = torch::Dispatcher::singleton().findSchemaOrThrow("compat_list::scaled_sum", "");
  c10::List<at::Tensor> xs({torch::ones({2, 2}), torch::full({2, 2}, 2.0)});
  c10::List<double> scales({3.0, 0.5});
  torch::jit::Stack stack;
  stack.emplace_back(xs.vec());  // a tensor list goes in through vec()
  stack.emplace_back(scales);    // other lists convert directly
  op.callBoxed(&stack);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_TRUE(stack[0].toTensor().equal(torch::full({2, 2}, 4.0)));
  c10::List<int64_t> sizes = stack[1].toIntList();
  EXPECT_EQ(sizes, c10::List<int64_t>({2, 2}));
  c10::List<at::Tensor> same = std::vector<at::Tensor>{xs.get(1), xs.get(0)};
  EXPECT_FALSE(same == xs);  // tensors compare by identity, in order
  same.set(0, xs.get(0));
  same.set(1, xs.get(1));
  EXPECT_TRUE(same == xs);
}

// ---- c10::optional ------------------------------------------------------------

c10::optional<int64_t> maybe_dim(bool give) {
  if (give) return c10::make_optional<int64_t>(3);
  return c10::nullopt;
}

TEST(OptionalCompat, AliasesOfStdOptional) {
  static_assert(std::is_same<c10::optional<int>, std::optional<int>>::value, "alias");
  EXPECT_EQ(maybe_dim(true).value(), 3);
  EXPECT_FALSE(maybe_dim(false).has_value());
  c10::optional<torch::Tensor> none = c10::nullopt;
  EXPECT_FALSE(none.has_value());
}

// ---- operators ------------------------------------------------------------------

std::vector<int64_t> ints(const torch::Tensor& t) {
  torch::Tensor c = t.to(torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

TEST(OperatorsCompat, ComparisonsGiveBoolTensors) {
  torch::Tensor x = torch::tensor({-1.0, 0.0, 2.0});
  torch::Tensor y = torch::tensor({0.0, 0.0, 3.0});
  EXPECT_EQ((x > 0).scalar_type(), torch::kBool);
  EXPECT_EQ(ints(x > 0), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(ints(x >= 0), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(ints(x < y), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(ints(x <= 0.0), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(ints(x == y), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(ints(x != y), (std::vector<int64_t>{1, 0, 1}));
  // A Scalar on the left mirrors the comparison.
  EXPECT_EQ(ints(0 < x), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(ints(1 >= x), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(ints(2 == x), (std::vector<int64_t>{0, 0, 1}));
}

TEST(OperatorsCompat, BitwiseOnBoolAndIntegers) {
  torch::Tensor a = torch::tensor({true, true, false, false});
  torch::Tensor b = torch::tensor({true, false, true, false});
  EXPECT_EQ((a & b).scalar_type(), torch::kBool);
  EXPECT_EQ(ints(a & b), (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(ints(a | b), (std::vector<int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(ints(a ^ b), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(ints(~a), (std::vector<int64_t>{0, 0, 1, 1}));
  torch::Tensor i = torch::tensor({12, 10, -1}, torch::kInt);
  torch::Tensor j = torch::tensor({10, 6, 5}, torch::kInt);
  EXPECT_EQ((i & j).scalar_type(), torch::kInt);
  EXPECT_EQ(ints(i & j), (std::vector<int64_t>{8, 2, 5}));
  EXPECT_EQ(ints(i | j), (std::vector<int64_t>{14, 14, -1}));
  EXPECT_EQ(ints(i ^ j), (std::vector<int64_t>{6, 12, -6}));
  EXPECT_EQ(ints(~i), (std::vector<int64_t>{-13, -11, 0}));
  EXPECT_EQ(ints(i & 6), (std::vector<int64_t>{4, 2, 6}));
  EXPECT_EQ(ints(3 | j), (std::vector<int64_t>{11, 7, 7}));
  // A mask built from comparisons, as programs write it.
  torch::Tensor x = torch::tensor({-2.0, 0.5, 3.0});
  EXPECT_EQ(ints((x > 0) & (x < 1)), (std::vector<int64_t>{0, 1, 0}));
}

TEST(OperatorsCompat, BitwiseRefusesFloatingWithAMessage) {
  torch::Tensor f = torch::ones({2});
  EXPECT_THAT(errorOf([&] { (void)(f & f); }),
              HasSubstr("bitwise_and: not implemented for 'Float' tensors; bitwise operators"));
  EXPECT_THAT(errorOf([&] { (void)(~f); }),
              HasSubstr("bitwise_not: not implemented for 'Float' tensors"));
}

TEST(OperatorsCompat, CompoundAssignmentIsInPlace) {
  torch::Tensor a = torch::tensor({1.0, 2.0});
  torch::Tensor alias = a;
  a += torch::tensor({10.0, 20.0});
  a -= 1;
  a *= 2;
  a /= torch::full({2}, 4.0);
  EXPECT_TRUE(alias.is_same(a));
  EXPECT_DOUBLE_EQ(alias[0].item<double>(), 5.0);   // ((1 + 10 - 1) * 2) / 4
  EXPECT_DOUBLE_EQ(alias[1].item<double>(), 10.5);  // ((2 + 20 - 1) * 2) / 4
  torch::Tensor m = torch::tensor({true, false});
  m |= torch::tensor({false, true});
  m &= torch::tensor({true, false});
  m ^= torch::tensor({true, true});
  EXPECT_EQ(ints(m), (std::vector<int64_t>{0, 1}));
  torch::Tensor i = torch::tensor({1, 2});
  EXPECT_THAT(errorOf([&] { i += 0.5; }), HasSubstr("add_"));
}

// ---- devices --------------------------------------------------------------------

TEST(DeviceCompat, CudaIsUnavailableWithoutAPlugin) {
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0u);
  EXPECT_FALSE(torch::cuda::cudnn_is_available());
  // The answer comes from the device runtime registry, not a constant.
  EXPECT_EQ(at::device_count(torch::kCPU), 1);
  EXPECT_FALSE(c10::impl::hasDeviceGuardImpl(torch::kCUDA));
}

TEST(DeviceCompat, ToByNameCpuAndCuda) {
  torch::Tensor t = torch::arange(3);
  torch::Tensor same = t.to("cpu");
  EXPECT_TRUE(same.is_same(t));  // already there: no copy, as libtorch
  EXPECT_TRUE(t.to(std::string("cpu")).is_cpu());
  EXPECT_TRUE(t.cpu().is_same(t));
  torch::Tensor copy = t.to("cpu", /*non_blocking=*/false, /*copy=*/true);
  EXPECT_FALSE(copy.is_same(t));
  EXPECT_TRUE(copy.equal(t));
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available()) device = torch::Device(torch::kCUDA);
  EXPECT_TRUE(t.to(device).is_cpu());
  EXPECT_THAT(errorOf([&] { t.cuda(); }),
              HasSubstr("cuda: no CUDA device is available (torch::cuda::is_available() is "
                        "false)"));
  EXPECT_THAT(errorOf([&] { t.to("gpu"); }), HasSubstr("gpu"));
}

// A PrivateUse1 "device" whose memory is host memory, with just a copy_
// kernel: enough for item() and printing, which copy to the CPU first.
at::Tensor& fake_device_copy_(at::Tensor& self, const at::Tensor& src, bool /*non_blocking*/) {
  TORCH_CHECK(self.is_cpu() && src.device().type() == c10::kPrivateUse1 &&
                  self.scalar_type() == src.scalar_type() && self.numel() == src.numel(),
              "fake_device_copy_: only copies to the CPU are supported");
  std::memcpy(self.data_ptr(), src.data_ptr(),
              static_cast<size_t>(src.numel()) * c10::elementSize(src.scalar_type()));
  return self;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { m.impl("copy_", TORCH_FN(fake_device_copy_)); }

at::Tensor fake_device_tensor(std::vector<float> values) {
  const size_t bytes = values.size() * sizeof(float);
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), bytes, c10::GetCPUAllocator(), true));
  std::memcpy(storage.unsafeGetStorageImpl()->mutable_data_ptr().get(), values.data(), bytes);
  storage.unsafeGetStorageImpl()->mutable_data_ptr().unsafe_set_device(
      c10::Device(c10::kPrivateUse1));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), at::kFloat));
  t.unsafeGetTensorImpl()->set_sizes_contiguous({static_cast<int64_t>(values.size())});
  return t;
}

TEST(DeviceCompat, ItemAndPrintingOfANonCpuTensorCopyToTheCpu) {
  at::Tensor one = fake_device_tensor({2.5f});
  EXPECT_EQ(one.device().type(), c10::kPrivateUse1);
  EXPECT_FLOAT_EQ(one.item<float>(), 2.5f);
  at::Tensor two = fake_device_tensor({1.5f, -3.0f});
  EXPECT_EQ(two.cpu().device().type(), c10::kCPU);
  EXPECT_FLOAT_EQ(two.cpu()[1].item<float>(), -3.0f);
  const std::string printed = two.toString();
  EXPECT_THAT(printed, HasSubstr("1.5000"));
  EXPECT_THAT(printed, HasSubstr("-3.0000"));
}

// ---- macros -----------------------------------------------------------------------

TEST(MacrosCompat, AtErrorAndAtAssert) {
  EXPECT_THAT(errorOf([] { AT_ERROR("bad value ", 3); }), HasSubstr("bad value 3"));
  EXPECT_EQ(errorOf([] { AT_ASSERT(1 + 1 == 2); }), "<no error>");
  EXPECT_THAT(errorOf([] { AT_ASSERT(1 + 1 == 3, "arithmetic"); }), HasSubstr("1 + 1 == 3"));
}

TEST(MacrosCompat, CheckOpFamilyThrowsWithBothValues) {
  int calls = 0;
  auto two = [&] { ++calls; return 2; };
  TORCH_CHECK_EQ(two(), 2);
  EXPECT_EQ(calls, 1);  // evaluated once when the check passes
  TORCH_CHECK_NE(1, 2);
  TORCH_CHECK_LT(1, 2);
  TORCH_CHECK_LE(2, 2);
  TORCH_CHECK_GT(3, 2);
  TORCH_CHECK_GE(3, 3);
  EXPECT_THAT(errorOf([] { TORCH_CHECK_EQ(1 + 2, 4) << "sum of " << 1 << " and " << 2; }),
              HasSubstr("Check failed: 1 + 2 == 4 (3 vs. 4) sum of 1 and 2"));
  EXPECT_THAT(errorOf([] { TORCH_CHECK_GT(1, 2); }), HasSubstr("Check failed: 1 > 2 (1 vs. 2)"));
  EXPECT_THAT(errorOf([] { TORCH_CHECK_LE(5, 4); }), HasSubstr("Check failed: 5 <= 4"));
  // Usable as the body of an unbraced if/else.
  bool reached_else = false;
  if (calls == 0)
    TORCH_CHECK_EQ(calls, 0);
  else
    reached_else = true;
  EXPECT_TRUE(reached_else);
}

TEST(MacrosCompat, DispatchMacrosBindScalarT) {
  auto sum_of = [](const torch::Tensor& t) {
    return AT_DISPATCH_ALL_TYPES(t.scalar_type(), "sum_of", [&] {
      double s = 0;
      const scalar_t* p = t.data_ptr<scalar_t>();
      for (int64_t i = 0; i < t.numel(); ++i) s += static_cast<double>(p[i]);
      return s;
    });
  };
  EXPECT_DOUBLE_EQ(sum_of(torch::tensor({1.5, 2.0})), 3.5);
  EXPECT_DOUBLE_EQ(sum_of(torch::tensor({1, 2, 3}, torch::kShort)), 6.0);
  EXPECT_THAT(errorOf([&] { sum_of(torch::ones({1}, torch::kBool)); }),
              HasSubstr("\"sum_of\" not implemented for 'Bool'"));
  size_t size = 0;
  AT_DISPATCH_FLOATING_TYPES(torch::kDouble, "size", [&] { size = sizeof(scalar_t); });
  EXPECT_EQ(size, 8u);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, at::kBFloat16, "size",
                                  [&] { size = sizeof(scalar_t); });
  EXPECT_EQ(size, 2u);
  EXPECT_THAT(errorOf([] { AT_DISPATCH_FLOATING_TYPES(at::kInt, "f", [] {}); }),
              HasSubstr("\"f\" not implemented for 'Int'"));
  AT_DISPATCH_INTEGRAL_TYPES(at::kByte, "i", [&] { size = sizeof(scalar_t); });
  EXPECT_EQ(size, 1u);
  AT_DISPATCH_ALL_TYPES_AND(at::kBool, at::kBool, "b", [&] { size = sizeof(scalar_t); });
  EXPECT_EQ(size, sizeof(bool));
}

TEST(DispatcherCompat, TorchDispatcherIsC10Dispatcher) {
  static_assert(std::is_same<torch::Dispatcher, c10::Dispatcher>::value, "alias");
  auto op = torch::Dispatcher::singleton().findSchemaOrThrow("aten::add", "Tensor");
  torch::Tensor r = op.typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Scalar&)>()
                        .call(torch::ones({2}), torch::ones({2}), 3);
  EXPECT_DOUBLE_EQ(r[0].item<double>(), 4.0);
}

// ---- torch::save / torch::load ------------------------------------------------------

TEST(SaveLoadCompat, TensorRoundTrips) {
  const std::string path = temp_path("tensor.pt");
  torch::Tensor x = torch::arange(6, torch::kFloat).reshape({2, 3}).t();  // non-contiguous
  torch::save(x, path);
  torch::Tensor y;
  torch::load(y, path);
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_EQ(y.scalar_type(), torch::kFloat);
  EXPECT_TRUE(y.equal(x));
  std::remove(path.c_str());
}

TEST(SaveLoadCompat, VectorRoundTripsWithUndefinedEntries) {
  const std::string path = temp_path("vector.pt");
  std::vector<torch::Tensor> v{torch::ones({2}, torch::kLong), torch::Tensor(),
                               torch::tensor(true)};
  torch::save(v, path);
  std::vector<torch::Tensor> back{torch::zeros({9})};
  torch::load(back, path);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_TRUE(back[0].equal(v[0]));
  EXPECT_FALSE(back[1].defined());
  EXPECT_EQ(back[2].dim(), 0);
  EXPECT_TRUE(back[2].item<bool>());
  torch::Tensor t;
  EXPECT_THAT(errorOf([&] { torch::load(t, path); }),
              HasSubstr("torch::load(a tensor): " + path + " holds a vector of tensors"));
  std::remove(path.c_str());
}

TEST(SaveLoadCompat, OptimizerStateRoundTrips) {
  const std::string path = temp_path("optim.pt");
  torch::manual_seed(0);
  torch::nn::Linear fc(3, 2);
  torch::optim::Adam adam(fc->parameters(), torch::optim::AdamOptions(0.1));
  for (int step = 0; step < 2; ++step) {
    adam.zero_grad();
    fc->forward(torch::ones({4, 3})).pow(2).sum().backward();
    adam.step();
  }
  torch::save(adam, path);
  torch::optim::Adam other(fc->parameters(), torch::optim::AdamOptions(0.1));
  torch::load(other, path);
  auto a = adam.named_state(), b = other.named_state();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
  }
  torch::nn::Linear small(2, 2);
  torch::optim::Adam wrong(std::vector<torch::Tensor>{small->weight}, torch::optim::AdamOptions());
  EXPECT_THAT(errorOf([&] { torch::load(wrong, path); }),
              HasSubstr("parameter groups of sizes [2], but this one has [1]"));
  torch::Tensor t;
  EXPECT_THAT(errorOf([&] { torch::load(t, path); }), HasSubstr("holds an optimizer's state"));
  std::remove(path.c_str());
}

}  // namespace
