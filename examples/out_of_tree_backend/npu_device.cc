// npu_device.cc — the npu's device side: its allocator, its device runtime
// (c10::impl::DeviceGuardImplInterface: one device, one stream), its default
// generator, and the one-time setup that names PrivateUse1 "npu" and
// registers them. The kernels are in npu_kernels.cc.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>

#include <ATen/ATen.h>

#include "c10/core/DefaultGenerators.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "registration/plugin_loader.h"
#include "npu_device.h"

namespace {

constexpr unsigned char kPoison = 0xCB;
std::atomic<int64_t> bytes_in_use{0};
std::atomic<int64_t> blocks_in_use{0};

// A block: its size in front of the data, so the deleter can poison and count.
struct Header {
  size_t nbytes;
  size_t pad;  // keeps the data 16-byte aligned
};

void free_block(void* ctx) {
  auto* h = static_cast<Header*>(ctx);
  std::memset(h + 1, kPoison, h->nbytes);
  bytes_in_use -= static_cast<int64_t>(h->nbytes);
  --blocks_in_use;
  std::free(h);
}

// [doc:allocator]
struct NpuAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) override {
    const c10::Device device(c10::kPrivateUse1, 0);
    auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + n));
    TORCH_CHECK(h != nullptr, "npu: out of memory allocating ", n, " bytes.");
    h->nbytes = n;
    bytes_in_use += static_cast<int64_t>(n);
    ++blocks_in_use;
    return c10::DataPtr(h + 1, h, &free_block, device);
  }
  void copy_data(void* dest, const void* src, size_t count) const override {
    default_copy_data(dest, src, count);
  }
};
NpuAllocator npu_allocator;
// [doc:end]

// [doc:guard]
// One device, one stream: what c10::DeviceGuard and the autograd engine need.
struct NpuGuard final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::kPrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override {
    check(d);
    return npu0();
  }
  c10::Device getDevice() const override { return npu0(); }
  void setDevice(c10::Device d) const override { check(d); }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, npu0());
  }
  c10::Stream exchangeStream(c10::Stream) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, npu0());
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
  static c10::Device npu0() { return c10::Device(c10::kPrivateUse1, 0); }
  static void check(c10::Device d) {
    TORCH_CHECK(d.index() <= 0, "npu: there is no device ", d,
                "; this backend has one device, npu:0.");
  }
};
NpuGuard guard_impl;
// [doc:end]

// [doc:generator]
// The npu's generator: a device and key set of its own around a CPU Philox
// engine, whose numbers the random kernels draw (the memory is host memory).
// So the npu's stream is independent of the CPU's, and a seed gives the npu
// the numbers it gives the CPU.
class NpuGeneratorImpl final : public c10::GeneratorImpl {
 public:
  explicit NpuGeneratorImpl(at::Generator engine = at::detail::createCPUGenerator())
      : c10::GeneratorImpl(c10::Device(c10::kPrivateUse1, 0),
                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
        engine_(std::move(engine)) {}

  void set_current_seed(uint64_t seed) override {
    std::lock_guard<std::mutex> lock(engine_.mutex());
    engine_.set_current_seed(seed);
  }
  uint64_t current_seed() const override {
    std::lock_guard<std::mutex> lock(engine_.mutex());
    return engine_.current_seed();
  }
  uint64_t seed() override {
    std::random_device rd;
    const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
    set_current_seed(s);
    return s;
  }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    std::lock_guard<std::mutex> lock(engine_.mutex());
    return engine_.unsafeGetGeneratorImpl()->get_state();
  }
  void set_state(const c10::TensorImpl& state) override {
    std::lock_guard<std::mutex> lock(engine_.mutex());
    engine_.unsafeGetGeneratorImpl()->set_state(state);
  }
  const at::Generator& engine() const { return engine_; }

 protected:
  c10::intrusive_ptr<c10::GeneratorImpl> clone_impl() const override {
    std::lock_guard<std::mutex> lock(engine_.mutex());
    return c10::make_intrusive<NpuGeneratorImpl>(engine_.clone());
  }

 private:
  at::Generator engine_;
};

const at::Generator& npu_default_generator(c10::DeviceIndex index) {
  TORCH_CHECK(index == 0, "npu: no device npu:", static_cast<int>(index),
              "; this backend has one device, npu:0.");
  static const at::Generator* generator =
      new at::Generator(at::make_generator<NpuGeneratorImpl>());
  return *generator;
}
C10_REGISTER_DEFAULT_GENERATOR(PrivateUse1, npu_default_generator);
// [doc:end]

// [doc:init]
// The device's name, allocator and runtime, before any kernel registers.
struct Init {
  Init() {
    try {
      c10::register_privateuse1_backend("npu");
      c10::SetAllocator(c10::kPrivateUse1, &npu_allocator);
      guard = c10::impl::registerDeviceGuardImpl(c10::kPrivateUse1, &guard_impl,
                                                 "npu_device.cc");
    } catch (...) {
      if (!c10::impl::report_registration_error(std::current_exception())) throw;
    }
  }
  c10::impl::DeviceGuardImplRegistration guard;
};
Init init;
// [doc:end]

}  // namespace

namespace npu {

c10::Allocator* allocator() { return &npu_allocator; }

at::Tensor host_view(const at::Tensor& t) {
  if (t.device().is_cpu()) return t;
  if (t.numel() == 0) return at::empty(t.sizes(), at::TensorOptions(t.scalar_type()));
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), [keep = t](void*) {},
                       at::TensorOptions(t.scalar_type()));
}

at::Generator host_engine(const std::optional<at::Generator>& gen) {
  return at::get_generator_or_default<NpuGeneratorImpl>(gen, npu_default_generator(0))
      ->engine();
}

}  // namespace npu

extern "C" int64_t npu_bytes_in_use() { return bytes_in_use.load(); }
extern "C" int64_t npu_blocks_in_use() { return blocks_in_use.load(); }
