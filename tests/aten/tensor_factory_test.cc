// at::tensor and torch::tensor: shapes, values and dtype inference as in
// libtorch, options (dtype, requires_grad), and the errors for ragged and
// mixed-kind lists; at::detail::empty_generic and computeStorageNbytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <ATen/EmptyTensor.h>
#include <torch/autograd.h>
#include <torch/detail/TensorDataContainer.h>
#include <torch/types.h>

#include "c10/core/CPUAllocator.h"
#include "tests/support/error_of.h"

using ::testing::HasSubstr;

namespace {

using ember_test::errorOf;

std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor flat = t.to(at::kDouble).contiguous().reshape({-1});
  const double* p = flat.data_ptr<double>();
  return std::vector<double>(p, p + flat.numel());
}

std::vector<int64_t> sizes_of(const at::Tensor& t) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
}

// ---- at::tensor ---------------------------------------------------------------------

TEST(AtTensor, KeepsTheDtypeOfTheCppType) {
  EXPECT_EQ(at::tensor({1, 2, 3}).scalar_type(), at::kInt);
  EXPECT_EQ(at::tensor({1.5, 2.5}).scalar_type(), at::kDouble);
  EXPECT_EQ(at::tensor({1.5f}).scalar_type(), at::kFloat);
  EXPECT_EQ(at::tensor(std::vector<int64_t>{4, 5}).scalar_type(), at::kLong);
  EXPECT_EQ(at::tensor({true, false}).scalar_type(), at::kBool);
  EXPECT_EQ(at::tensor(at::ArrayRef<uint8_t>({7, 8})).scalar_type(), at::kByte);
  EXPECT_EQ(values_of(at::tensor({1, 2, 3})), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values_of(at::tensor({true, false})), (std::vector<double>{1, 0}));
}

TEST(AtTensor, ASingleValueIsOneDimensional) {
  at::Tensor t = at::tensor(3.5);
  EXPECT_EQ(sizes_of(t), (std::vector<int64_t>{1}));
  EXPECT_EQ(t.scalar_type(), at::kDouble);
  EXPECT_EQ(values_of(t), (std::vector<double>{3.5}));
}

TEST(AtTensor, OptionsConvertTheValuesAndDefaultToFloat) {
  at::Tensor d = at::tensor({1, 2}, at::kDouble);
  EXPECT_EQ(d.scalar_type(), at::kDouble);
  EXPECT_EQ(values_of(d), (std::vector<double>{1, 2}));
  // Options without a dtype mean the default dtype, as in libtorch.
  EXPECT_EQ(at::tensor({1, 2}, at::TensorOptions()).scalar_type(), at::kFloat);
  at::Tensor l = at::tensor({2.75, -1.5}, at::kLong);
  EXPECT_EQ(values_of(l), (std::vector<double>{2, -1}));
}

TEST(AtTensor, RequiresGradOptionMakesALeaf) {
  at::Tensor t = at::tensor({1., 2.}, at::dtype(at::kDouble).requires_grad(true));
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(t.is_leaf());
}

TEST(AtTensor, EmptyListGivesAnEmptyTensor) {
  at::Tensor t = at::tensor(std::vector<double>{});
  EXPECT_EQ(sizes_of(t), (std::vector<int64_t>{0}));
  EXPECT_EQ(t.scalar_type(), at::kDouble);
}

TEST(AtTensor, ConvertsAsCopyDoes) {
  // As libtorch's element-wise cast (and copy_): integers wrap modulo 2^8.
  EXPECT_EQ(values_of(at::tensor({300, -1}, at::kByte)), (std::vector<double>{44, 255}));
}

TEST(TorchTensor, ValuesTheDtypeCannotHoldAreRefused) {
  // torch::tensor converts each value as a c10::Scalar: checked.
  const std::string refused = "value 300 cannot be converted to type";
  EXPECT_THAT(errorOf([] { torch::tensor({300}, torch::kUInt8); }), HasSubstr(refused));
  // Whatever spells the value: a scalar or a vector too.
  EXPECT_THAT(errorOf([] { torch::tensor(300, torch::kUInt8); }), HasSubstr(refused));
  EXPECT_THAT(errorOf([] { torch::tensor(std::vector<int>{1, 300}, torch::kUInt8); }),
              HasSubstr(refused));
}

// ---- torch::tensor: dtype inference ---------------------------------------------------

TEST(TorchTensor, IntegersInferLongAndFloatingInferFloat) {
  EXPECT_EQ(torch::tensor({1, 2, 3}).scalar_type(), at::kLong);
  EXPECT_EQ(torch::tensor({int64_t{1}}).scalar_type(), at::kLong);
  EXPECT_EQ(torch::tensor({1.5, 2.5}).scalar_type(), at::kFloat);
  EXPECT_EQ(torch::tensor({1.5f, 2.5f}).scalar_type(), at::kFloat);
  // float and double literals both infer the default dtype, so they mix.
  EXPECT_EQ(torch::tensor({1.5f, 2.5}).scalar_type(), at::kFloat);
  EXPECT_EQ(torch::tensor({true, false, true}).scalar_type(), at::kBool);
  EXPECT_EQ(torch::tensor({uint8_t{1}, uint8_t{2}}).scalar_type(), at::kByte);
  EXPECT_EQ(values_of(torch::tensor({true, false, true})), (std::vector<double>{1, 0, 1}));
}

TEST(TorchTensor, ArrayRefAndVectorInferAsTheirElementsDo) {
  at::Tensor a = torch::tensor(at::ArrayRef<int>({1, 2, 3}));
  EXPECT_EQ(a.scalar_type(), at::kLong);
  EXPECT_EQ(values_of(a), (std::vector<double>{1, 2, 3}));
  at::Tensor v = torch::tensor(std::vector<double>{1.5, 2.25});
  EXPECT_EQ(v.scalar_type(), at::kFloat);
  EXPECT_EQ(values_of(v), (std::vector<double>{1.5, 2.25}));
  EXPECT_EQ(torch::tensor(std::vector<int16_t>{1}).scalar_type(), at::kShort);
  at::Tensor b = torch::tensor(std::vector<bool>{true, false, true});
  EXPECT_EQ(b.scalar_type(), at::kBool);
  EXPECT_EQ(values_of(b), (std::vector<double>{1, 0, 1}));
}

TEST(TorchTensor, AScalarIsZeroDimensional) {
  at::Tensor f = torch::tensor(3.5);
  EXPECT_EQ(f.dim(), 0);
  EXPECT_EQ(f.scalar_type(), at::kFloat);
  EXPECT_EQ(f.item<float>(), 3.5f);
  at::Tensor i = torch::tensor(7);
  EXPECT_EQ(i.dim(), 0);
  EXPECT_EQ(i.scalar_type(), at::kLong);
  EXPECT_EQ(i.item<int64_t>(), 7);
  EXPECT_EQ(torch::tensor(true).scalar_type(), at::kBool);
}

// ---- torch::tensor: nested lists ------------------------------------------------------

TEST(TorchTensor, NestedListsGiveTheirShapeInRowMajorOrder) {
  at::Tensor m = torch::tensor({{1., 2.}, {3., 4.}, {5., 6.}});
  EXPECT_EQ(sizes_of(m), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(m.scalar_type(), at::kFloat);
  EXPECT_EQ(values_of(m), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_FLOAT_EQ(m.select(0, 1).select(0, 0).item<float>(), 3.f);

  at::Tensor c = torch::tensor({{{1}, {2}}, {{3}, {4}}});
  EXPECT_EQ(sizes_of(c), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(c.scalar_type(), at::kLong);
  EXPECT_EQ(values_of(c), (std::vector<double>{1, 2, 3, 4}));
}

TEST(TorchTensor, SingleElementListsKeepTheirDimension) {
  EXPECT_EQ(sizes_of(torch::tensor({5})), (std::vector<int64_t>{1}));
  EXPECT_EQ(sizes_of(torch::tensor({{5}})), (std::vector<int64_t>{1, 1}));
}

TEST(TorchTensor, EmptyListsGiveZeroSizeFloatTensors) {
  at::Tensor e = torch::tensor({});
  EXPECT_EQ(sizes_of(e), (std::vector<int64_t>{0}));
  EXPECT_EQ(e.scalar_type(), at::kFloat);
  at::Tensor e2 = torch::tensor({{}, {}});
  EXPECT_EQ(sizes_of(e2), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(torch::tensor({{}, {}}, torch::kLong).scalar_type(), at::kLong);
}

TEST(TorchTensor, VectorsNestInsideLists) {
  std::vector<int> row0{1, 2}, row1{3, 4};
  at::Tensor t = torch::tensor({row0, row1});
  EXPECT_EQ(sizes_of(t), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.scalar_type(), at::kLong);
  EXPECT_EQ(values_of(t), (std::vector<double>{1, 2, 3, 4}));
}

// ---- torch::tensor: options -----------------------------------------------------------

TEST(TorchTensor, ADtypeInTheOptionsWins) {
  at::Tensor d = torch::tensor({1, 2}, torch::kFloat64);
  EXPECT_EQ(d.scalar_type(), at::kDouble);
  EXPECT_EQ(values_of(d), (std::vector<double>{1, 2}));
  EXPECT_EQ(torch::tensor(3.5, torch::kFloat64).scalar_type(), at::kDouble);
  EXPECT_EQ(torch::tensor(std::vector<int>{1}, torch::kInt32).scalar_type(), at::kInt);
  // A dtype also makes mixed literals acceptable: each value is converted.
  at::Tensor mixed = torch::tensor({1, 2.5}, torch::kFloat64);
  EXPECT_EQ(values_of(mixed), (std::vector<double>{1, 2.5}));
}

TEST(TorchTensor, RequiresGradOptionGivesALeafThatBackpropagates) {
  at::Tensor x = torch::tensor({1., 2., 3.}, torch::dtype(torch::kFloat64).requires_grad(true));
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  (x * x).sum().backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{2, 4, 6}));
  EXPECT_TRUE(torch::tensor(2.0, torch::requires_grad()).requires_grad());
  EXPECT_FALSE(torch::tensor({1., 2.}).requires_grad());
}

TEST(TorchTensor, EachCallMakesANewTensor) {
  torch::detail::TensorDataContainer values(std::vector<double>{1, 2});
  at::Tensor a = torch::tensor(values);
  at::Tensor b = torch::tensor(values);
  a.fill_(0);
  EXPECT_EQ(values_of(b), (std::vector<double>{1, 2}));
}

// ---- torch::tensor: errors ------------------------------------------------------------

TEST(TorchTensor, RaggedListsNameTheDimensionAndSizes) {
  std::string msg = errorOf([] { torch::tensor({{1, 2}, {3, 4, 5}}); });
  EXPECT_THAT(msg, HasSubstr("expected a sublist of size 2 at dimension 1 (index [1]), "
                             "but got a sublist of size 3"));
  EXPECT_THAT(msg, HasSubstr("rectangular"));
  // The dimension counts from the outermost list, however deep.
  msg = errorOf([] { torch::tensor({{{1, 2}, {3, 4}}, {{1, 2}, {3}}}); });
  EXPECT_THAT(msg, HasSubstr("expected a sublist of size 2 at dimension 2 (index [1, 1]), "
                             "but got a sublist of size 1"));
}

TEST(TorchTensor, ScalarsAndListsDoNotMix) {
  EXPECT_THAT(errorOf([] { torch::tensor({{1, 2}, 3}); }),
              HasSubstr("expected a sublist of size 2 at dimension 1 (index [1]), but got "
                        "the scalar 3"));
  EXPECT_THAT(errorOf([] { torch::tensor({1, {2, 3}}); }),
              HasSubstr("expected a scalar at dimension 1 (index [1]), but got a sublist "
                        "of size 2"));
}

TEST(TorchTensor, AVectorFillsOnlyTheLastDimension) {
  std::vector<int> v{1};
  // {{{1}}, v}: v (size 1) stands where a [1, 1] list of lists belongs.
  EXPECT_THAT(errorOf([&] { torch::tensor({{{1}}, v}); }),
              HasSubstr("expected a list of 1-level nested sublists at dimension 1 (index "
                        "[1]), but got a vector of size 1"));
}

TEST(TorchTensor, MixedKindsOfValuesAreRefused) {
  std::string msg = errorOf([] { torch::tensor({1, 2.5}); });
  EXPECT_THAT(msg, HasSubstr("expected every element to infer the dtype of the first one "
                             "(Long at index [0]), but the element at index [1] infers "
                             "Float"));
  EXPECT_THAT(msg, HasSubstr("or pass a dtype"));
  EXPECT_THAT(errorOf([] { torch::tensor({{true, false}, {1, 0}}); }),
              HasSubstr("(Bool at index [0, 0]), but the element at index [1, 0] infers "
                        "Long"));
}

}  // namespace

// ---- at::detail::empty_generic and computeStorageNbytes ------------------------------
// The helpers a backend makes its tensors with (aten/EmptyTensor.h) refuse the
// same geometries as the CPU's empty, with the same words (c10/core/StridedExtent.h).

TEST(EmptyGeneric, ComputesStorageBytes) {
  EXPECT_EQ(at::detail::computeStorageNbytesContiguous({2, 3}, 4), 24u);
  EXPECT_EQ(at::detail::computeStorageNbytesContiguous({2, 0}, 4), 0u);
  // Sizes [2, 3] with strides [1, 2] reach elements 0..5; from offset 4: 10 elements.
  EXPECT_EQ(at::detail::computeStorageNbytes({2, 3}, {1, 2}, 8, 4), 80u);
  EXPECT_EQ(at::detail::computeStorageNbytes({2, 0}, {1, 2}, 8, 4), 0u);
  // A zero stride (expanded) reaches one element.
  EXPECT_EQ(at::detail::computeStorageNbytes({5}, {0}, 4), 4u);
}

TEST(EmptyGeneric, MakesTensorsOverTheGivenAllocator) {
  at::Tensor t(at::detail::empty_generic({2, 3, 4, 5}, c10::GetCPUAllocator(),
                                         c10::DispatchKeySet(c10::DispatchKey::CPU), at::kFloat,
                                         c10::MemoryFormat::ChannelsLast));
  EXPECT_EQ(sizes_of(t), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(std::vector<int64_t>(t.strides().begin(), t.strides().end()),
            (std::vector<int64_t>{60, 1, 15, 3}));
  at::Tensor s(at::detail::empty_strided_generic({2, 3}, {1, 2}, c10::GetCPUAllocator(),
                                                 c10::DispatchKeySet(c10::DispatchKey::CPU),
                                                 at::kDouble));
  EXPECT_EQ(s.storage().nbytes(), 48u);
  s.fill_(2.0);
  EXPECT_EQ(s.sum().item<double>(), 12.0);
}

TEST(EmptyGeneric, RefusesBadGeometriesNamingThem) {
  c10::Allocator* cpu = c10::GetCPUAllocator();
  const c10::DispatchKeySet ks(c10::DispatchKey::CPU);
  EXPECT_THAT(errorOf([&] { at::detail::empty_generic({2, -1}, cpu, ks, at::kFloat); }),
              HasSubstr("empty_generic: sizes must be non-negative, but got [2, -1] (size -1 at "
                        "dimension 1)"));
  EXPECT_THAT(errorOf([&] { at::detail::empty_generic({int64_t{1} << 62, 8}, cpu, ks, at::kFloat); }),
              HasSubstr("empty_generic: a tensor of sizes [4611686018427387904, 8] with 4-byte "
                        "elements needs more bytes than a 64-bit size holds"));
  EXPECT_THAT(errorOf([&] { at::detail::empty_strided_generic({2}, {1, 1}, cpu, ks, at::kFloat); }),
              HasSubstr("empty_strided_generic: got 1 sizes [2] but 2 strides [1, 1]"));
  EXPECT_THAT(errorOf([&] { at::detail::empty_strided_generic({2}, {-1}, cpu, ks, at::kFloat); }),
              HasSubstr("empty_strided_generic: strides must be non-negative, but got [-1]"));
  EXPECT_THAT(errorOf([&] {
                at::detail::empty_strided_generic({int64_t{1} << 40, 3}, {int64_t{1} << 40, 1},
                                                  cpu, ks, at::kFloat);
              }),
              HasSubstr("reach further than a 64-bit size holds"));
  EXPECT_THAT(errorOf([&] { at::detail::computeStorageNbytes({4}, {1}, 8, SIZE_MAX); }),
              HasSubstr("computeStorageNbytes: storage offset"));
  EXPECT_THAT(errorOf([&] { at::detail::empty_generic({2}, nullptr, ks, at::kFloat); }),
              HasSubstr("empty_generic: the allocator is null"));
}
