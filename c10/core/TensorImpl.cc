#include "c10/core/TensorImpl.h"

#include "c10/core/impl/BlockCache.h"

#include <algorithm>

namespace c10 {

void* TensorImpl::operator new(size_t size) {
  return impl::cached_block_new(impl::BlockKind::TensorImpl, size, sizeof(TensorImpl));
}

void TensorImpl::operator delete(void* block, size_t size) noexcept {
  impl::cached_block_delete(impl::BlockKind::TensorImpl, block, size, sizeof(TensorImpl));
}
namespace impl {

namespace {
// Written once at start-up by the autograd package; the release/acquire
// pair publishes the factory object to every thread that reads it.
std::atomic<AutogradMetaFactory*> autograd_meta_factory{nullptr};
}  // namespace

void SetAutogradMetaFactory(AutogradMetaFactory* factory) {
  autograd_meta_factory.store(factory, std::memory_order_release);
}

AutogradMetaFactory* GetAutogradMetaFactory() {
  AutogradMetaFactory* factory =
      autograd_meta_factory.load(std::memory_order_acquire);
  TORCH_CHECK(factory != nullptr,
              "set_requires_grad: autograd is not available in this process "
              "(no AutogradMetaFactory is installed). Link the autograd "
              "package (depend on //:ember) to use requires_grad.");
  return factory;
}

SizesAndStrides::SizesAndStrides(const SizesAndStrides& other) {
  *this = other;
}

SizesAndStrides& SizesAndStrides::operator=(const SizesAndStrides& other) {
  if (this == &other) return *this;
  resize(other.size_);
  std::copy_n(other.sizes_data(), size_, sizes_data());
  std::copy_n(other.strides_data(), size_, strides_data());
  return *this;
}

void SizesAndStrides::resize_slow(size_t new_size) {
  const size_t keep = std::min(size_, new_size);
  if (new_size <= kInlineDims) {  // heap -> inline
    int64_t* old = heap_;
    const size_t old_size = size_;
    for (size_t i = 0; i < keep; ++i) {
      inline_[i] = old[i];
      inline_[kInlineDims + i] = old[old_size + i];
    }
    delete[] old;
  } else {  // inline or heap -> heap
    auto* fresh = new int64_t[2 * new_size]();
    std::copy_n(sizes_data(), keep, fresh);
    std::copy_n(strides_data(), keep, fresh + new_size);
    if (!is_inline()) delete[] heap_;
    heap_ = fresh;
  }
  size_ = new_size;
}

}  // namespace impl

// Note [Autograd keys on every tensor]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As in PyTorch, every tensor carries its backend's Autograd key and
// ADInplaceOrView, whether or not it requires grad. The Autograd kernel then
// decides per call whether to record history; this keeps requires_grad_()
// and grad mode from having to rewrite key sets, and lets in-place ops on
// views be tracked. Code that must skip autograd uses
// at::AutoDispatchBelowAutograd.
TensorImpl::TensorImpl(Storage&& storage, DispatchKeySet key_set,
                       ScalarType dtype)
    : storage_(std::move(storage)),
      device_(storage_ ? storage_.device() : Device(DeviceType::CPU)),
      dtype_(dtype),
      itemsize_(static_cast<uint8_t>(elementSize(dtype))) {
  TORCH_CHECK(storage_, "TensorImpl: the storage is undefined; pass a Storage "
              "that owns (or will own) the tensor's bytes.");
  const BackendComponent backend = key_set.highestBackendKey();
  TORCH_CHECK(backend != BackendComponent::InvalidBit,
              "TensorImpl: the key set ", key_set,
              " names no backend; pass the backend key of the storage's "
              "device, e.g. DispatchKeySet(DispatchKey::",
              computeDispatchKey(device_.type()), ").");
  TORCH_CHECK(backendComponentToDeviceType(backend) == device_.type(),
              "TensorImpl: the key set ", key_set, " is for device type ",
              backendComponentToDeviceType(backend), " but the storage is on ",
              device_, "; pass DispatchKeySet(DispatchKey::",
              computeDispatchKey(device_.type()), ") for this storage.");
  key_set_ = key_set | getAutogradRelatedKeySetFromBackend(backend);
}

TensorImpl::TensorImpl(UndefinedTag)
    : numel_(0),
      device_(DeviceType::CPU),
      dtype_(ScalarType::Undefined),
      itemsize_(0) {}

TensorImpl::~TensorImpl() {
  if (VersionCounter* vc = version_counter_.load(std::memory_order_relaxed)) {
    intrusive_ptr<VersionCounter>::reclaim(vc);  // drops our reference
  }
}

void TensorImpl::release_resources() {
  autograd_meta_.reset();
  storage_ = Storage();
}

int64_t TensorImpl::size(int64_t d) const {
  const int64_t n = dim();
  TORCH_CHECK_INDEX(d >= -n && d < n, "size: dimension ", d,
                    " is out of range for a ", n, "-d tensor; expected a "
                    "dimension in [", -n, ", ", n - 1, "].");
  return sizes()[static_cast<size_t>(d < 0 ? d + n : d)];
}

int64_t TensorImpl::stride(int64_t d) const {
  const int64_t n = dim();
  TORCH_CHECK_INDEX(d >= -n && d < n, "stride: dimension ", d,
                    " is out of range for a ", n, "-d tensor; expected a "
                    "dimension in [", -n, ", ", n - 1, "].");
  return strides()[static_cast<size_t>(d < 0 ? d + n : d)];
}

void TensorImpl::set_sizes_contiguous(IntArrayRef new_size) {
  // A negative size sets the sign bit of the OR of all sizes: one test.
  int64_t all = 0;
  for (int64_t s : new_size) all |= s;
  TORCH_CHECK(all >= 0, "set_sizes_contiguous: sizes must be non-negative, "
              "but got ", new_size, ".");
  const size_t n = new_size.size();
  sizes_and_strides_.resize(n);
  int64_t* sizes = sizes_and_strides_.sizes_data();
  int64_t* strides = sizes_and_strides_.strides_data();
  int64_t stride = 1;
  int64_t numel = 1;
  for (size_t i = n; i-- > 0;) {
    const int64_t size = new_size[i];
    sizes[i] = size;
    strides[i] = stride;
    stride *= std::max<int64_t>(size, 1);
    numel *= size;
  }
  numel_ = numel;
  is_contiguous_ = true;
}

void TensorImpl::set_sizes_and_strides(IntArrayRef new_size,
                                       IntArrayRef new_stride,
                                       int64_t storage_offset) {
  TORCH_CHECK(new_size.size() == new_stride.size(),
              "set_sizes_and_strides: got ", new_size.size(), " sizes ",
              new_size, " but ", new_stride.size(), " strides ", new_stride,
              "; pass one stride per dimension.");
  for (size_t i = 0; i < new_size.size(); ++i) {
    TORCH_CHECK(new_size[i] >= 0, "set_sizes_and_strides: sizes must be "
                "non-negative, but got ", new_size, ".");
    TORCH_CHECK(new_stride[i] >= 0, "set_sizes_and_strides: strides must be "
                "non-negative, but got ", new_stride, ".");
  }
  sizes_and_strides_.resize(new_size.size());
  std::copy(new_size.begin(), new_size.end(), sizes_and_strides_.sizes_data());
  std::copy(new_stride.begin(), new_stride.end(),
            sizes_and_strides_.strides_data());
  if (storage_offset >= 0) storage_offset_ = storage_offset;
  refresh_numel();
  refresh_contiguous();
}

void TensorImpl::set_storage_offset(int64_t storage_offset) {
  TORCH_CHECK(storage_offset >= 0, "set_storage_offset: the offset must be "
              "non-negative, but got ", storage_offset, ".");
  storage_offset_ = storage_offset;
}

void TensorImpl::set_storage_keep_dtype(Storage storage) {
  TORCH_CHECK(storage, "set_storage_keep_dtype: the storage is undefined.");
  TORCH_CHECK(storage.device().type() == device_.type(),
              "set_storage_keep_dtype: the tensor is on ", device_,
              " but the new storage is on ", storage.device(),
              "; a tensor cannot change device by swapping storage. Use "
              "to(device) instead.");
  storage_ = std::move(storage);
  device_ = storage_.device();
}

void TensorImpl::shallow_copy_from(const TensorImpl& src) {
  TORCH_CHECK(src.storage_ && storage_, "shallow_copy_from: both tensors must be "
              "defined; an undefined tensor has no data to share.");
  if (&src == this) return;
  storage_ = src.storage_;
  device_ = src.device_;
  key_set_ = src.key_set_;
  dtype_ = src.dtype_;
  itemsize_ = src.itemsize_;
  is_wrapped_number_ = false;
  set_sizes_and_strides(src.sizes(), src.strides(), src.storage_offset_);
}

void TensorImpl::set_wrapped_number(bool value) {
  TORCH_CHECK(!value || dim() == 0, "set_wrapped_number: only a 0-dim tensor "
              "can be a wrapped number, but this one has ", dim(),
              " dimensions.");
  is_wrapped_number_ = value;
}

void TensorImpl::refresh_numel() {
  int64_t n = 1;
  for (int64_t s : sizes()) n *= s;
  numel_ = n;
}

// Contiguous means row-major: each stride is the product of the later sizes,
// ignoring dimensions of size 1 (their stride never matters); a tensor with
// no elements is contiguous.
void TensorImpl::refresh_contiguous() {
  if (numel_ == 0) {
    is_contiguous_ = true;
    return;
  }
  int64_t expected = 1;
  const IntArrayRef sz = sizes();
  const IntArrayRef st = strides();
  for (size_t i = sz.size(); i-- > 0;) {
    if (sz[i] == 1) continue;
    if (st[i] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sz[i];
  }
  is_contiguous_ = true;
}

VersionCounter* TensorImpl::ensure_version_counter() const {
  // Acquire pairs with the release of the CAS below, so a thread that sees
  // the pointer sees the constructed counter.
  VersionCounter* vc = version_counter_.load(std::memory_order_acquire);
  if (vc != nullptr) return vc;
  VersionCounter* fresh = make_intrusive<VersionCounter>(0).release();
  if (version_counter_.compare_exchange_strong(vc, fresh,
                                               std::memory_order_acq_rel,
                                               std::memory_order_acquire)) {
    return fresh;
  }
  intrusive_ptr<VersionCounter>::reclaim(fresh);  // another thread won
  return vc;
}

uint32_t TensorImpl::version() const {
  VersionCounter* vc = version_counter_.load(std::memory_order_acquire);
  return vc == nullptr ? 0 : vc->version_.load(std::memory_order_relaxed);
}

void TensorImpl::bump_version() {
  ensure_version_counter()->version_.fetch_add(1, std::memory_order_relaxed);
}

VariableVersion TensorImpl::version_counter() const {
  return VariableVersion(
      intrusive_ptr<VersionCounter>::reclaim_copy(ensure_version_counter()));
}

void TensorImpl::set_version_counter(const VariableVersion& version_counter) {
  intrusive_ptr<VersionCounter> copy = version_counter.counter();
  VersionCounter* old =
      version_counter_.exchange(copy.release(), std::memory_order_acq_rel);
  if (old != nullptr) intrusive_ptr<VersionCounter>::reclaim(old);
}

void TensorImpl::set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) {
  autograd_meta_ = std::move(meta);
}

void TensorImpl::set_requires_grad(bool requires_grad) {
  if (!requires_grad && autograd_meta_ == nullptr) return;
  if (autograd_meta_ == nullptr) {
    autograd_meta_ = impl::GetAutogradMetaFactory()->make();
  }
  autograd_meta_->set_requires_grad(requires_grad, this);
}

UndefinedTensorImpl::UndefinedTensorImpl() : TensorImpl(UndefinedTag{}) {}

TensorImpl* UndefinedTensorImpl::singleton() {
  // Leaked on purpose: handles may still point at it during static
  // destruction.
  static UndefinedTensorImpl* instance = new UndefinedTensorImpl();
  return instance;
}

}  // namespace c10
