// c10/util/intrusive_ptr.h — reference counting stored inside the object.
//
// `c10::intrusive_ptr<T>` is a shared owning pointer whose counts live in the
// pointee (which derives from `c10::intrusive_ptr_target`), so copying one is
// a single atomic increment with no separate control block, and a raw `T*`
// can be turned back into an owning pointer (`reclaim`). TensorImpl,
// StorageImpl and autograd nodes are held this way. Use std::shared_ptr for
// types that cannot derive from intrusive_ptr_target or that need custom
// deleters; use std::unique_ptr when there is a single owner.
//
//   struct Blob : c10::intrusive_ptr_target { int value = 0; };
//   c10::intrusive_ptr<Blob> a = c10::make_intrusive<Blob>();
//   c10::intrusive_ptr<Blob> b = a;               // a.use_count() == 2
//   c10::weak_intrusive_ptr<Blob> w(a);
//   a.reset(); b.reset();                         // Blob is gone ...
//   assert(w.expired() && !w.lock());             // ... and cannot come back.
//
// A null pointer is a plain nullptr (PyTorch's per-type null singletons are
// not needed here).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>

#include "c10/util/Exception.h"

namespace c10 {

template <class T>
class intrusive_ptr;
template <class T>
class weak_intrusive_ptr;

// Note [Intrusive counts]
// ~~~~~~~~~~~~~~~~~~~~~~~
// An intrusive_ptr_target carries two counts:
//   refcount_  = number of intrusive_ptr owning the object;
//   weakcount_ = number of weak_intrusive_ptr + (refcount_ > 0 ? 1 : 0).
// The "+1 while strong refs exist" means weak pointers alone can never free
// the object while a strong reference is alive. Lifecycle:
//   - make_intrusive sets both counts to 1.
//   - When refcount_ drops to 0 and weak pointers remain, release_resources()
//     runs (the object is "expired" but its memory stays for the weak
//     pointers' counts); then the strong side drops its weak unit.
//   - When refcount_ drops to 0 and no weak pointer exists (weakcount_ == 1),
//     the object is deleted at once without calling release_resources(): the
//     destructor must release everything itself.
//   - Whoever drops weakcount_ to 0 deletes the object.
//   - refcount_ never leaves 0 once it got there: lock() refuses to revive it.
// Invariant: refcount_ > 0 implies weakcount_ > 0.
//
// Note [Memory orders of the counts]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Increments are relaxed: a thread can only add a reference while it already
// holds one (strong or weak), so the count cannot concurrently reach 0 and
// nothing needs ordering against the increment itself. Decrements are acq_rel:
// the release half orders this thread's earlier uses of the object before the
// decrement, and the acquire half, on the thread that sees the count reach
// zero, makes all those uses happen-before release_resources() or delete.
// This is the same protocol std::shared_ptr uses.

// c10::intrusive_ptr_target
//
// Base class of every type held by intrusive_ptr. Holds the two counts; see
// Note [Intrusive counts]. Copying or moving a target does not copy its
// counts (a copy is a new object with no owners). Subclasses override
// release_resources() to drop heavy state (e.g. a storage's memory) as soon
// as no strong reference is left, even though weak references keep the
// object itself alive. An object may also live on the stack or as a member
// as long as no intrusive_ptr ever takes ownership of it. Thread safety:
// the counts are atomic, see Note [Memory orders of the counts].
class intrusive_ptr_target {
 protected:
  constexpr intrusive_ptr_target() noexcept : refcount_(0), weakcount_(0) {}
  // The counts belong to the memory location, not the value: copies and
  // moves start unowned and assignments leave both sides' counts alone.
  intrusive_ptr_target(const intrusive_ptr_target&) noexcept
      : intrusive_ptr_target() {}
  intrusive_ptr_target& operator=(const intrusive_ptr_target&) noexcept {
    return *this;
  }
  intrusive_ptr_target(intrusive_ptr_target&&) noexcept
      : intrusive_ptr_target() {}
  intrusive_ptr_target& operator=(intrusive_ptr_target&&) noexcept {
    return *this;
  }

  // Deleting an object that strong pointers still own is a bug. Relaxed is
  // enough: if we are being destroyed legitimately, the deleting thread has
  // already synchronized with every other owner.
  virtual ~intrusive_ptr_target() {
    TORCH_INTERNAL_ASSERT_DEBUG_ONLY(
        refcount_.load(std::memory_order_relaxed) == 0,
        "~intrusive_ptr_target: object destroyed while ",
        refcount_.load(std::memory_order_relaxed),
        " intrusive_ptr still own it");
  }

 private:
  // Called at most once, when the last strong reference goes away while weak
  // references remain. See Note [Intrusive counts].
  virtual void release_resources() {}

  template <class T>
  friend class intrusive_ptr;
  template <class T>
  friend class weak_intrusive_ptr;

  mutable std::atomic<size_t> refcount_;
  mutable std::atomic<size_t> weakcount_;
};

namespace detail {

template <class T>
constexpr void assert_is_target() {
  static_assert(std::is_base_of<intrusive_ptr_target, T>::value,
                "intrusive_ptr<T>: T must derive from "
                "c10::intrusive_ptr_target");
}

}  // namespace detail

// c10::intrusive_ptr<T>
//
// An owning pointer to a T that derives from intrusive_ptr_target. Like
// std::shared_ptr, distinct intrusive_ptr objects may be copied and
// destroyed concurrently from many threads even when they point to the same
// object; one intrusive_ptr object must not be written by one thread while
// another thread uses it. The pointee's own thread safety is its business.
template <class T>
class intrusive_ptr final {
 public:
  using element_type = T;

  constexpr intrusive_ptr() noexcept : target_(nullptr) {}
  constexpr intrusive_ptr(std::nullptr_t) noexcept : target_(nullptr) {}

  intrusive_ptr(const intrusive_ptr& rhs) : target_(rhs.target_) { retain(); }
  intrusive_ptr(intrusive_ptr&& rhs) noexcept : target_(rhs.target_) {
    rhs.target_ = nullptr;
  }

  // Converting constructors: intrusive_ptr<Derived> -> intrusive_ptr<Base>.
  template <class U,
            class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  intrusive_ptr(const intrusive_ptr<U>& rhs) : target_(rhs.get()) {
    retain();
  }
  template <class U,
            class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  intrusive_ptr(intrusive_ptr<U>&& rhs) noexcept : target_(rhs.release()) {}

  ~intrusive_ptr() { drop(); }

  intrusive_ptr& operator=(const intrusive_ptr& rhs) & {
    intrusive_ptr(rhs).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& rhs) & noexcept {
    intrusive_ptr(std::move(rhs)).swap(*this);
    return *this;
  }
  template <class U,
            class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  intrusive_ptr& operator=(const intrusive_ptr<U>& rhs) & {
    intrusive_ptr(rhs).swap(*this);
    return *this;
  }
  template <class U,
            class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  intrusive_ptr& operator=(intrusive_ptr<U>&& rhs) & noexcept {
    intrusive_ptr(std::move(rhs)).swap(*this);
    return *this;
  }

  T* get() const noexcept { return target_; }
  T& operator*() const noexcept { return *target_; }
  T* operator->() const noexcept { return target_; }
  explicit operator bool() const noexcept { return target_ != nullptr; }
  bool defined() const noexcept { return target_ != nullptr; }

  void reset() noexcept {
    drop();
    target_ = nullptr;
  }
  void swap(intrusive_ptr& rhs) noexcept { std::swap(target_, rhs.target_); }

  // Number of strong references (0 when null). Acquire so that a caller who
  // sees 1 and then mutates the object in place (copy-on-write) is ordered
  // after the other owners' uses, which ended with release decrements.
  size_t use_count() const noexcept {
    return target_ ? target_->refcount_.load(std::memory_order_acquire) : 0;
  }
  // Raw weak count: weak pointers + 1 for the strong side (0 when null).
  // See Note [Intrusive counts]. Acquire for the same reason as use_count().
  size_t weak_use_count() const noexcept {
    return target_ ? target_->weakcount_.load(std::memory_order_acquire) : 0;
  }
  bool unique() const noexcept { return use_count() == 1; }

  // Gives up ownership without touching the counts; the caller must hand
  // the pointer back to reclaim() exactly once.
  T* release() noexcept {
    T* result = target_;
    target_ = nullptr;
    return result;
  }

  // c10::intrusive_ptr<T>::reclaim
  //
  // Takes back a reference given up by release(). Does not change counts.
  static intrusive_ptr reclaim(T* owning_ptr) {
    TORCH_CHECK(owning_ptr == nullptr ||
                    owning_ptr->refcount_.load(std::memory_order_relaxed) > 0,
                "intrusive_ptr::reclaim: the pointer has no owning reference "
                "(use count 0). Pass only pointers obtained from release(); "
                "create new objects with make_intrusive.");
    intrusive_ptr result;
    result.target_ = owning_ptr;
    return result;
  }

  // c10::intrusive_ptr<T>::reclaim_copy
  //
  // Like reclaim(), but leaves the caller's reference in place (adds one).
  static intrusive_ptr reclaim_copy(T* owning_ptr) {
    intrusive_ptr result = reclaim(owning_ptr);
    result.retain();
    return result;
  }

  // c10::intrusive_ptr<T>::unsafe_reclaim_from_nonowning
  //
  // A new strong reference to an object that some intrusive_ptr already owns,
  // given only a raw pointer to it (e.g. `this` inside a member function).
  static intrusive_ptr unsafe_reclaim_from_nonowning(T* raw_ptr) {
    return reclaim_copy(raw_ptr);
  }

  // c10::intrusive_ptr<T>::unsafe_steal_from_new
  //
  // Takes ownership of a freshly `new`-ed object that no intrusive_ptr has
  // owned yet. Prefer make_intrusive.
  static intrusive_ptr unsafe_steal_from_new(T* raw_ptr) {
    detail::assert_is_target<T>();
    intrusive_ptr result;
    result.target_ = raw_ptr;
    if (raw_ptr != nullptr) {
      TORCH_INTERNAL_ASSERT_DEBUG_ONLY(
          raw_ptr->refcount_.load(std::memory_order_relaxed) == 0 &&
              raw_ptr->weakcount_.load(std::memory_order_relaxed) == 0,
          "intrusive_ptr::unsafe_steal_from_new: object is already owned");
      // Relaxed: the object is not shared with any other thread yet; whatever
      // publishes the pointer later also publishes these stores.
      raw_ptr->refcount_.store(1, std::memory_order_relaxed);
      raw_ptr->weakcount_.store(1, std::memory_order_relaxed);
    }
    return result;
  }

 private:
  void retain() noexcept {
    detail::assert_is_target<T>();
    if (target_ != nullptr) {
      // Relaxed: See Note [Memory orders of the counts].
      target_->refcount_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Drops this reference, running release_resources() / delete as described
  // in Note [Intrusive counts]. Leaves target_ dangling; callers reset it.
  void drop() noexcept {
    detail::assert_is_target<T>();
    if (target_ == nullptr) return;
    // Fast path for the common case of a sole owner with no weak pointers:
    // no other thread holds a reference through which it could copy, lock
    // or drop one, so the counts cannot change under us and the two
    // read-modify-writes below (~8 ns each) can be skipped. The acquire
    // loads pair with the acq_rel decrements of the owners that left before
    // us, as the slow path's decrement would.
    if (target_->refcount_.load(std::memory_order_acquire) == 1 &&
        target_->weakcount_.load(std::memory_order_acquire) == 1) {
      target_->refcount_.store(0, std::memory_order_relaxed);
      delete target_;
      return;
    }
    // acq_rel: See Note [Memory orders of the counts].
    if (target_->refcount_.fetch_sub(1, std::memory_order_acq_rel) != 1) {
      return;
    }
    // refcount_ is now 0 for good, so no weak pointer can be created from a
    // strong one any more; weakcount_ == 1 therefore means no weak pointer
    // exists and none can appear. Acquire pairs with the acq_rel decrement of
    // a weak pointer that was just dropped, so its last access to the counts
    // happens-before the delete.
    bool should_delete =
        target_->weakcount_.load(std::memory_order_acquire) == 1;
    if (!should_delete) {
      // Called through the base, where it is declared and we are a friend,
      // so subclasses may override it with any access level.
      const_cast<intrusive_ptr_target*>(
          static_cast<const intrusive_ptr_target*>(target_))
          ->release_resources();
      // acq_rel: we may be the last user of the memory; see above.
      should_delete =
          target_->weakcount_.fetch_sub(1, std::memory_order_acq_rel) == 1;
    }
    if (should_delete) {
      delete target_;
    }
  }

  template <class U>
  friend class intrusive_ptr;
  template <class U>
  friend class weak_intrusive_ptr;

  T* target_;
};

// c10::make_intrusive<T>(args...)
//
// Allocates a T with `new` and returns its first owner. Thread-safe.
template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>::unsafe_steal_from_new(
      new T(std::forward<Args>(args)...));
}

template <class T, class U>
bool operator==(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T, class U>
bool operator!=(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T, class U>
bool operator<(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return std::less<const void*>()(a.get(), b.get());
}
template <class T>
bool operator==(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return a.get() == nullptr;
}
template <class T>
bool operator==(std::nullptr_t, const intrusive_ptr<T>& a) noexcept {
  return a.get() == nullptr;
}
template <class T>
bool operator!=(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return a.get() != nullptr;
}
template <class T>
bool operator!=(std::nullptr_t, const intrusive_ptr<T>& a) noexcept {
  return a.get() != nullptr;
}

template <class T>
void swap(intrusive_ptr<T>& a, intrusive_ptr<T>& b) noexcept {
  a.swap(b);
}

// c10::weak_intrusive_ptr<T>
//
// A non-owning reference that keeps the object's memory (not its resources)
// alive and can be upgraded with lock() while a strong reference exists.
// Same thread-safety contract as intrusive_ptr.
template <class T>
class weak_intrusive_ptr final {
 public:
  using element_type = T;

  constexpr weak_intrusive_ptr() noexcept : target_(nullptr) {}
  explicit weak_intrusive_ptr(const intrusive_ptr<T>& ptr)
      : target_(ptr.get()) {
    retain();
  }
  weak_intrusive_ptr(const weak_intrusive_ptr& rhs) : target_(rhs.target_) {
    retain();
  }
  weak_intrusive_ptr(weak_intrusive_ptr&& rhs) noexcept
      : target_(rhs.target_) {
    rhs.target_ = nullptr;
  }
  template <class U,
            class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  weak_intrusive_ptr(const weak_intrusive_ptr<U>& rhs) : target_(rhs.target_) {
    retain();
  }
  template <class U,
            class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  weak_intrusive_ptr(weak_intrusive_ptr<U>&& rhs) noexcept
      : target_(rhs.target_) {
    rhs.target_ = nullptr;
  }

  ~weak_intrusive_ptr() { drop(); }

  weak_intrusive_ptr& operator=(const weak_intrusive_ptr& rhs) & {
    weak_intrusive_ptr(rhs).swap(*this);
    return *this;
  }
  weak_intrusive_ptr& operator=(weak_intrusive_ptr&& rhs) & noexcept {
    weak_intrusive_ptr(std::move(rhs)).swap(*this);
    return *this;
  }
  weak_intrusive_ptr& operator=(const intrusive_ptr<T>& rhs) & {
    weak_intrusive_ptr(rhs).swap(*this);
    return *this;
  }

  void reset() noexcept {
    drop();
    target_ = nullptr;
  }
  void swap(weak_intrusive_ptr& rhs) noexcept {
    std::swap(target_, rhs.target_);
  }

  // Strong references left (0 when null or expired).
  size_t use_count() const noexcept {
    // Relaxed: a snapshot; lock() is the only safe way to act on it.
    return target_ ? target_->refcount_.load(std::memory_order_relaxed) : 0;
  }
  // Raw weak count, see intrusive_ptr::weak_use_count.
  size_t weak_use_count() const noexcept {
    return target_ ? target_->weakcount_.load(std::memory_order_relaxed) : 0;
  }
  bool expired() const noexcept { return use_count() == 0; }

  // c10::weak_intrusive_ptr<T>::lock
  //
  // A new strong reference, or null if the object has expired. Never
  // revives an object whose strong count has reached 0.
  intrusive_ptr<T> lock() const noexcept {
    if (target_ == nullptr) return intrusive_ptr<T>();
    // Relaxed initial load: the CAS below re-validates it.
    size_t count = target_->refcount_.load(std::memory_order_relaxed);
    do {
      if (count == 0) return intrusive_ptr<T>();
      // The count is only moved from n > 0 to n + 1, so release_resources()
      // cannot have run and cannot run while we hold the result. Acquire on
      // success additionally orders the caller after earlier owners' release
      // decrements (as std::weak_ptr::lock does); relaxed on failure because
      // we only retry.
    } while (!target_->refcount_.compare_exchange_weak(
        count, count + 1, std::memory_order_acquire,
        std::memory_order_relaxed));
    intrusive_ptr<T> result;
    result.target_ = target_;
    return result;
  }

  // For hashing and ordering; the pointee may already be expired.
  T* _unsafe_get_target() const noexcept { return target_; }

 private:
  void retain() noexcept {
    detail::assert_is_target<T>();
    if (target_ != nullptr) {
      // Relaxed: See Note [Memory orders of the counts].
      target_->weakcount_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  void drop() noexcept {
    detail::assert_is_target<T>();
    // acq_rel: See Note [Memory orders of the counts]. Reaching 0 implies
    // the strong side already dropped its unit, so refcount_ is 0 too.
    if (target_ != nullptr &&
        target_->weakcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete target_;
    }
  }

  template <class U>
  friend class weak_intrusive_ptr;

  T* target_;
};

template <class T, class U>
bool operator==(const weak_intrusive_ptr<T>& a,
                const weak_intrusive_ptr<U>& b) noexcept {
  return a._unsafe_get_target() == b._unsafe_get_target();
}
template <class T, class U>
bool operator!=(const weak_intrusive_ptr<T>& a,
                const weak_intrusive_ptr<U>& b) noexcept {
  return !(a == b);
}
template <class T, class U>
bool operator<(const weak_intrusive_ptr<T>& a,
               const weak_intrusive_ptr<U>& b) noexcept {
  return std::less<const void*>()(a._unsafe_get_target(),
                                  b._unsafe_get_target());
}

template <class T>
void swap(weak_intrusive_ptr<T>& a, weak_intrusive_ptr<T>& b) noexcept {
  a.swap(b);
}

}  // namespace c10

namespace std {
template <class T>
struct hash<c10::intrusive_ptr<T>> {
  size_t operator()(const c10::intrusive_ptr<T>& p) const noexcept {
    return std::hash<T*>()(p.get());
  }
};
template <class T>
struct hash<c10::weak_intrusive_ptr<T>> {
  size_t operator()(const c10::weak_intrusive_ptr<T>& p) const noexcept {
    return std::hash<T*>()(p._unsafe_get_target());
  }
};
}  // namespace std
