// Tensor::pin_memory() and is_pinned() (Note [Pinned memory] in
// aten/ops/conversion.cc) against a fake page-locked allocator registered
// for CUDA, as the CUDA plugin registers its caching host allocator: the
// copy's values, strides and allocator, pinning what is pinned already,
// autograd through the copy, and the errors (no allocator, a device tensor,
// a CPU "accelerator", bad registrations). The real allocator runs in the
// gpu-tagged suite (tests/backends/cuda:cuda_gpu_test).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include <torch/torch.h>

#include "c10/core/Allocator.h"
#include "tests/support/error_of.h"

namespace {

std::atomic<int> g_live{0};

void delete_fake(void* p) {
  --g_live;
  std::free(p);
}

// Host memory standing in for page-locked memory; counts live blocks.
class FakePinned final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    void* p = std::malloc(n == 0 ? 1 : n);
    ++g_live;
    return c10::DataPtr(p, p, &delete_fake, c10::Device(c10::kCPU));
  }
  c10::DeleterFnPtr raw_deleter() const override { return &delete_fake; }
  void copy_data(void* dest, const void* src, size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

FakePinned g_fake;

// An allocator whose blocks is_pinned() could not recognise.
class NoRawDeleter final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t) override { return c10::DataPtr(nullptr, c10::Device(c10::kCPU)); }
  void copy_data(void* dest, const void* src, size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

// Registers the fake for the test's scope.
struct Registered {
  Registered() { c10::SetPinnedMemoryAllocator(c10::kCUDA, &g_fake); }
  ~Registered() { c10::SetPinnedMemoryAllocator(c10::kCUDA, nullptr); }
};

TEST(PinMemory, WithoutAnAllocatorNothingIsPinnedAndPinningSaysWhy) {
  const at::Tensor t = at::ones({2, 3});
  EXPECT_FALSE(t.is_pinned());
  EXPECT_EQ(ember_test::errorOf([&] { t.pin_memory(); }),
            "pin_memory: no pinned-memory allocator for CUDA: its plugin (libember_cuda.so) "
            "is not loaded and none was found on the plugin search path, or it pins no "
            "memory. Load it (torch::load_library, EMBER_PLUGIN_PATH) or do not pin.");
}

TEST(PinMemory, CopiesIntoThePinnedAllocatorKeepingValuesAndDenseStrides) {
  Registered fake;
  const at::Tensor t = at::arange(24, at::kFloat).reshape({2, 3, 4});
  EXPECT_FALSE(t.is_pinned());
  const int before = g_live;
  at::Tensor p = t.pin_memory();
  EXPECT_EQ(g_live, before + 1);
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.is_pinned(at::Device(at::kCUDA)));
  EXPECT_TRUE(p.is_cpu());
  EXPECT_FALSE(p.is_same(t));
  EXPECT_TRUE(at::equal(p, t));
  EXPECT_EQ(p.strides(), t.strides());
  EXPECT_EQ(p.storage().data_ptr().get_deleter(), &delete_fake);
  // A view of a pinned tensor is pinned; pinning it returns it.
  at::Tensor v = p.select(1, 2);
  EXPECT_TRUE(v.is_pinned());
  EXPECT_TRUE(v.pin_memory().is_same(v));
  EXPECT_TRUE(p.pin_memory().is_same(p));
  // Dense permuted strides are kept (as _to_copy's Preserve).
  const at::Tensor perm = t.permute({2, 0, 1});
  at::Tensor pp = perm.pin_memory();
  EXPECT_EQ(pp.strides(), perm.strides());
  EXPECT_TRUE(at::equal(pp, perm));
  // Other dtypes, 0-dim and empty tensors.
  at::Tensor i = at::arange(5, at::kLong).pin_memory();
  EXPECT_TRUE(i.is_pinned());
  EXPECT_EQ(i.scalar_type(), at::kLong);
  EXPECT_EQ(i[4].item<int64_t>(), 4);
  EXPECT_EQ(at::scalar_tensor(2.5).pin_memory().item<double>(), 2.5);
  EXPECT_EQ(at::empty({0, 3}).pin_memory().sizes(), at::IntArrayRef({0, 3}));
  p.reset();
  v.reset();
  pp.reset();
  i.reset();
  EXPECT_EQ(g_live, before);  // every pinned block went back to its allocator
}

// pin_memory=true in the factories and in to()/_to_copy, as PyTorch's.
TEST(PinMemory, FactoriesAndCopiesWithPinMemoryTrue) {
  Registered fake;
  const at::TensorOptions pinned = at::TensorOptions().pinned_memory(true);
  EXPECT_TRUE(at::empty({2, 3}, pinned).is_pinned());
  EXPECT_TRUE(at::zeros({4}, pinned).is_pinned());
  EXPECT_TRUE(at::equal(at::ones({4}, pinned), at::ones({4})));
  EXPECT_TRUE(at::full({3}, 2.5, pinned.dtype(at::kDouble)).is_pinned());
  at::Tensor nhwc = at::empty({2, 3, 4, 5}, pinned, at::MemoryFormat::ChannelsLast);
  EXPECT_TRUE(nhwc.is_pinned());
  EXPECT_EQ(nhwc.strides(), at::IntArrayRef({60, 1, 15, 3}));  // NHWC
  at::Tensor strided = at::empty_strided({2, 3}, {1, 2}, pinned);
  EXPECT_TRUE(strided.is_pinned());
  EXPECT_EQ(strided.strides(), at::IntArrayRef({1, 2}));
  EXPECT_TRUE(at::rand({8}, pinned).is_pinned());
  const at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor copy = x.to(pinned, /*non_blocking=*/false, /*copy=*/true);
  EXPECT_TRUE(copy.is_pinned());
  EXPECT_TRUE(at::equal(copy, x));
  at::Tensor as_long =
      at::_to_copy(x, at::kLong, std::nullopt, std::nullopt, true, false, std::nullopt);
  EXPECT_TRUE(as_long.is_pinned());
  EXPECT_EQ(as_long.scalar_type(), at::kLong);
  EXPECT_EQ(ember_test::errorOf([&] {
              at::_to_copy(x, std::nullopt, std::nullopt, at::Device(at::kCUDA), true, false,
                           std::nullopt);
            }),
            "_to_copy: pin_memory=true makes a pinned CPU tensor (for copies to an "
            "accelerator), but the copy goes to cuda. Pass pin_memory=false, or copy to the "
            "CPU.");
}

TEST(PinMemory, FactoriesWithoutAnAllocatorSayWhy) {
  EXPECT_EQ(ember_test::errorOf(
                [] { at::empty({2}, at::TensorOptions().pinned_memory(true)); }),
            "empty: no pinned-memory allocator for CUDA: its plugin (libember_cuda.so) is not "
            "loaded and none was found on the plugin search path, or it pins no memory. Load "
            "it (torch::load_library, EMBER_PLUGIN_PATH) or do not pin.");
  EXPECT_FALSE(at::empty({2}, at::TensorOptions().pinned_memory(false)).is_pinned());
}

TEST(PinMemory, NonDenseTensorsArePinnedContiguous) {
  Registered fake;
  const at::Tensor base = at::arange(12, at::kFloat).reshape({3, 4});
  const at::Tensor strided = base.slice(1, 0, 4, 2);  // a gap between elements
  at::Tensor p = strided.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.is_contiguous());
  EXPECT_TRUE(at::equal(p, strided));
  const at::Tensor expanded = at::arange(3, at::kFloat).expand({4, 3});
  at::Tensor e = expanded.pin_memory();
  EXPECT_TRUE(e.is_contiguous());
  EXPECT_TRUE(at::equal(e, expanded));
}

TEST(PinMemory, GradientsFlowThroughThePinnedCopy) {
  Registered fake;
  at::Tensor x = at::ones({3}).requires_grad_(true);
  at::Tensor p = x.pin_memory();
  EXPECT_TRUE(p.requires_grad());
  (p * 2).sum().backward();
  EXPECT_TRUE(at::equal(x.grad(), at::full({3}, 2.0)));
}

TEST(PinMemory, ErrorsNameTheProblem) {
  Registered fake;
  const at::Tensor t = at::ones({2});
  EXPECT_EQ(ember_test::errorOf([&] { t.pin_memory(at::Device(at::kCPU)); }),
            "pin_memory: memory is pinned for copies to an accelerator; expected an "
            "accelerator device (as cuda) or none, got cpu.");
  EXPECT_EQ(ember_test::errorOf([&] { t.is_pinned(at::Device(at::kCPU)); }),
            "is_pinned: memory is pinned for copies to an accelerator; expected an "
            "accelerator device (as cuda) or none, got cpu.");
  EXPECT_EQ(ember_test::errorOf([] { at::Tensor().is_pinned(); }),
            "is_pinned: the input tensor is undefined; pass a defined tensor.");
  EXPECT_EQ(ember_test::errorOf([] { at::Tensor().pin_memory(); }),
            "pin_memory: the input tensor is undefined; pass a defined tensor.");
  EXPECT_EQ(ember_test::errorOf([] { c10::SetPinnedMemoryAllocator(c10::kCPU, &g_fake); }),
            "SetPinnedMemoryAllocator: memory is pinned for copies to an accelerator; "
            "expected an accelerator's device type, got cpu.");
  NoRawDeleter opaque;
  EXPECT_EQ(ember_test::errorOf([&] { c10::SetPinnedMemoryAllocator(c10::kCUDA, &opaque); }),
            "SetPinnedMemoryAllocator: the allocator for CUDA has no raw_deleter(); "
            "is_pinned() recognises pinned storage by it.");
  EXPECT_EQ(c10::GetPinnedMemoryAllocator(c10::kCUDA), &g_fake);  // left as it was
}

}  // namespace
