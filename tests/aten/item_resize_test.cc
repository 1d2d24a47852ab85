// Tensor::item() through _local_scalar_dense, and Tensor::resize_ with the
// out= helpers at::native::resize_output / resize_out: the ops that keep
// code above the backends from reading or resizing a backend's memory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aten/FromBlob.h"
#include "aten/Functions.h"
#include "aten/Resize.h"
#include "c10/core/CPUAllocator.h"
#include "c10/util/Exception.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::HasSubstr;

at::TensorOptions dtype(c10::ScalarType t) { return at::TensorOptions().dtype(t); }

// ---- item ----------------------------------------------------------------------------

TEST(Item, ReadsOneElementOfEveryDtype) {
  struct Case {
    c10::ScalarType dtype;
    c10::Scalar value;
  };
  const Case cases[] = {
      {at::kByte, c10::Scalar(int64_t{200})},   {at::kChar, c10::Scalar(int64_t{-100})},
      {at::kShort, c10::Scalar(int64_t{-30000})}, {at::kInt, c10::Scalar(int64_t{1} << 30)},
      {at::kLong, c10::Scalar(int64_t{1} << 40)}, {at::kHalf, c10::Scalar(1.5)},
      {at::kFloat, c10::Scalar(-0.25)},         {at::kDouble, c10::Scalar(1e300)},
      {at::kBool, c10::Scalar(true)},           {at::kBFloat16, c10::Scalar(-3.0)},
  };
  for (const Case& c : cases) {
    // A one-element tensor of any rank, read at its storage offset.
    at::Tensor t = at::full({3}, c.value, dtype(c.dtype)).slice(0, 2, 3).reshape({1, 1});
    const c10::Scalar s = t.item();
    if (c.dtype == at::kBool) {
      EXPECT_TRUE(s.isBoolean());
      EXPECT_EQ(s.to<bool>(), true);
    } else if (c10::isFloatingType(c.dtype)) {
      EXPECT_TRUE(s.isFloatingPoint()) << c.dtype;
      EXPECT_EQ(s.to<double>(), c.value.to<double>()) << c.dtype;
    } else {
      EXPECT_TRUE(s.isIntegral(false)) << c.dtype;
      EXPECT_EQ(s.to<int64_t>(), c.value.to<int64_t>()) << c.dtype;
    }
  }
  EXPECT_EQ(at::scalar_tensor(7, dtype(at::kLong)).item<int64_t>(), 7);
}

TEST(Item, RefusesManyElements) {
  EXPECT_EQ(errorOf([] { at::zeros({2}).item(); }),
            "item: a Tensor with 2 elements cannot be converted to Scalar; index it down "
            "to one element first.");
}

TEST(Item, ABackendWithoutCopyGetsTheDispatchersError) {
  // A PrivateUse1 tensor: item() copies it to the CPU first (Note [item
  // through the dispatcher]), and no backend registers copy_ for it here.
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), 4, c10::GetCPUAllocator(), true));
  storage.unsafeGetStorageImpl()->mutable_data_ptr().unsafe_set_device(
      c10::Device(c10::kPrivateUse1));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), at::kFloat));
  EXPECT_THAT(errorOf([&] { t.item(); }),
              HasSubstr("Could not run 'aten::copy_' with arguments from the "
                        "'PrivateUse1' backend"));
}

// ---- resize_ --------------------------------------------------------------------------

std::vector<float> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const float* p = static_cast<const float*>(c.data_ptr());
  return std::vector<float>(p, p + c.numel());
}

TEST(Resize, GrowsTheStorageKeepingItsBytes) {
  at::Tensor t = at::arange(4, dtype(at::kFloat));
  at::Tensor& r = t.resize_({2, 3});
  EXPECT_TRUE(r.is_same(t));
  EXPECT_EQ(t.sizes(), c10::IntArrayRef({2, 3}));
  EXPECT_EQ(t.strides(), c10::IntArrayRef({3, 1}));
  EXPECT_GE(t.storage().nbytes(), 24u);
  const std::vector<float> v = values(t);
  EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 4), (std::vector<float>{0, 1, 2, 3}));
  // Shrinking keeps the storage.
  t.resize_({1});
  EXPECT_EQ(t.numel(), 1);
  EXPECT_GE(t.storage().nbytes(), 24u);
}

TEST(Resize, SameSizesKeepStridesUnlessAFormatIsGiven) {
  at::Tensor t = at::zeros({3, 2}).t();  // [2, 3], strides [1, 2]
  t.resize_({2, 3});
  EXPECT_EQ(t.strides(), c10::IntArrayRef({1, 2}));
  t.resize_({2, 3}, c10::MemoryFormat::Contiguous);
  EXPECT_EQ(t.strides(), c10::IntArrayRef({3, 1}));
  at::Tensor n = at::zeros({0});
  n.resize_({2, 3, 4, 5}, c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(n.strides(), c10::IntArrayRef({60, 1, 15, 3}));
}

TEST(Resize, Errors) {
  at::Tensor t = at::zeros({2});
  EXPECT_THAT(errorOf([&] { t.resize_({2, -1}); }),
              HasSubstr("resize_: sizes must be non-negative, but got [2, -1]"));
  EXPECT_THAT(errorOf([&] { t.resize_({2}, c10::MemoryFormat::Preserve); }),
              HasSubstr("resize_: memory format Preserve is not supported"));
  EXPECT_THAT(errorOf([&] { t.resize_({2, 3}, c10::MemoryFormat::ChannelsLast); }),
              HasSubstr("resize_: memory format ChannelsLast needs 4 sizes"));
  float buffer[2] = {1, 2};
  at::Tensor blob = at::from_blob(buffer, {2});
  EXPECT_THAT(errorOf([&] { blob.resize_({3}); }),
              HasSubstr("resize_: the tensor needs 12 bytes to be resized to [3] but its "
                        "storage holds 8 and is not resizable"));
  blob.resize_({1, 2});  // fits: no new memory
  EXPECT_EQ(blob.data_ptr(), static_cast<void*>(buffer));
}

// As in PyTorch: a resize cannot be differentiated, so a tensor that
// requires grad is refused (before anything changes); others resize and
// their version counter moves, as for every in-place op.
TEST(Resize, RefusesTensorsThatRequireGrad) {
  at::Tensor leaf = at::zeros({2});
  leaf.requires_grad_(true);
  EXPECT_THAT(errorOf([&] { leaf.resize_({3}); }),
              HasSubstr("cannot resize variables that require grad: resize_ to [3] was called "
                        "on a tensor of sizes [2] that requires grad."));
  EXPECT_EQ(leaf.sizes().vec(), (std::vector<int64_t>{2}));
  at::Tensor detached = leaf.detach();
  const int64_t before = detached._version();
  detached.resize_({3});
  EXPECT_EQ(detached.sizes().vec(), (std::vector<int64_t>{3}));
  EXPECT_GT(detached._version(), before);
}

class WarningRecorder : public c10::WarningHandler {
 public:
  void process(const c10::Warning& w) override { messages.push_back(w.msg()); }
  std::vector<std::string> messages;
};

TEST(ResizeOutput, WarnsWhenANonEmptyOutputChangesShape) {
  WarningRecorder warnings;
  c10::WarningUtils::WarningHandlerGuard guard(&warnings);
  at::Tensor empty = at::zeros({0});
  EXPECT_TRUE(at::native::resize_output(empty, {2, 2}, "op"));
  EXPECT_EQ(empty.sizes(), c10::IntArrayRef({2, 2}));
  EXPECT_FALSE(at::native::resize_output(empty, {2, 2}, "op"));
  EXPECT_TRUE(warnings.messages.empty());
  EXPECT_TRUE(at::native::resize_output(empty, {5}, "op"));
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_THAT(warnings.messages[0],
              HasSubstr("op: an output with one or more elements was resized since it had "
                        "shape [2, 2], which does not match the required output shape [5]"));
  // resize_out: as resize_, naming the op, no warning.
  at::native::resize_out(empty, {3}, "zeros");
  EXPECT_EQ(warnings.messages.size(), 1u);
  EXPECT_THAT(errorOf([&] { at::native::resize_out(empty, {-1}, "zeros"); }),
              HasSubstr("zeros: sizes must be non-negative, but got [-1]"));
  float buffer[2] = {0, 0};
  at::Tensor blob = at::from_blob(buffer, {2});
  EXPECT_EQ(errorOf([&] { at::native::resize_output(blob, {3}, "add"); }),
            "add: the output needs 12 bytes to be resized to [3] but its storage holds 8 "
            "and is not resizable (it wraps memory Ember does not own). Pass an output of "
            "shape [3].");
}

}  // namespace
