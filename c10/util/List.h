// c10/util/List.h — c10::List<T>, libtorch's list type for boxed kernels
// (<ATen/core/List.h>): a list whose copies share their elements.
//
//   c10::List<int64_t> sizes({2, 3});
//   sizes.push_back(4);
//   c10::List<int64_t> alias = sizes;        // same elements
//   alias.set(0, 5);                         // sizes.get(0) == 5
//   stack.emplace_back(sizes);               // an IValue int list (a copy)
//   c10::List<at::Tensor> ts = stack[0].toTensorList();
//   for (const at::Tensor& t : ts) { ... }
//
// Differences from libtorch: an IValue cannot hold a c10::List. Converting
// goes through std::vector: `c10::IValue(list)` / `stack.emplace_back(list)`
// copy the elements into an IValue list, and a List is built from what
// `toIntList()`, `toDoubleVector()`, `toBoolVector()`, `toTensorList()`
// return (a copy), so a List taken from an IValue does not alias it.
// Kernels registered with c10::List parameters, `IValue::to<c10::List<T>>()`
// and c10::List<IValue> (GenericList) are not supported.
//
// Thread safety: as a std::vector shared by its copies; no internal locking.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace c10 {

namespace detail {
template <class T, class = void>
struct list_has_is_same : std::false_type {};
template <class T>
struct list_has_is_same<
    T, std::void_t<decltype(std::declval<const T&>().is_same(std::declval<const T&>()))>>
    : std::true_type {};
}  // namespace detail

template <class T>
class List final {
  using Vector = std::vector<T>;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = typename Vector::iterator;

  // c10::List<T>::ListElementReference — what operator[] returns: reads as
  // a T, assigning to it stores into the list.
  class ListElementReference {
   public:
    operator T() const { return (*list_)[pos_]; }
    ListElementReference& operator=(T value) {
      (*list_)[pos_] = std::move(value);
      return *this;
    }
    ListElementReference& operator=(const ListElementReference& other) {
      return *this = static_cast<T>(other);
    }

   private:
    friend class List;
    ListElementReference(Vector* list, size_type pos) : list_(list), pos_(pos) {}
    Vector* list_;
    size_type pos_;
  };

  List() : impl_(std::make_shared<Vector>()) {}
  List(std::initializer_list<T> values) : impl_(std::make_shared<Vector>(values)) {}
  /* implicit */ List(Vector values) : impl_(std::make_shared<Vector>(std::move(values))) {}
  /* implicit */ List(c10::ArrayRef<T> values)
      : impl_(std::make_shared<Vector>(values.begin(), values.end())) {}

  // A list with its own copy of the elements (copies of a List share them).
  List copy() const { return List(*impl_); }

  size_type size() const { return impl_->size(); }
  bool empty() const { return impl_->empty(); }
  void reserve(size_type n) const { impl_->reserve(n); }
  void resize(size_type n) const { impl_->resize(n); }
  void clear() const { impl_->clear(); }

  T get(size_type pos) const {
    check(pos, "get");
    return (*impl_)[pos];
  }
  void set(size_type pos, T value) const {
    check(pos, "set");
    (*impl_)[pos] = std::move(value);
  }
  // Moves element pos out, leaving a default-constructed T in its place.
  T extract(size_type pos) const {
    check(pos, "extract");
    T value = std::move((*impl_)[pos]);
    (*impl_)[pos] = T();
    return value;
  }
  ListElementReference operator[](size_type pos) const {
    check(pos, "operator[]");
    return ListElementReference(impl_.get(), pos);
  }

  void push_back(T value) const { impl_->push_back(std::move(value)); }
  template <class... Args>
  void emplace_back(Args&&... args) const {
    impl_->emplace_back(std::forward<Args>(args)...);
  }
  void append(const List& other) const {
    const Vector tail = *other.impl_;  // other may be this list
    impl_->insert(impl_->end(), tail.begin(), tail.end());
  }
  void pop_back() const {
    TORCH_CHECK(!impl_->empty(), "c10::List::pop_back: the list is empty.");
    impl_->pop_back();
  }
  iterator insert(iterator pos, T value) const { return impl_->insert(pos, std::move(value)); }
  iterator erase(iterator pos) const { return impl_->erase(pos); }
  iterator erase(iterator first, iterator last) const { return impl_->erase(first, last); }

  iterator begin() const { return impl_->begin(); }
  iterator end() const { return impl_->end(); }

  // The elements as a std::vector (a copy).
  Vector vec() const { return *impl_; }
  operator Vector() const { return *impl_; }

  // Whether both share their elements.
  bool is(const List& other) const { return impl_ == other.impl_; }
  std::size_t use_count() const { return static_cast<std::size_t>(impl_.use_count()); }

  // Element-wise; tensors compare by identity (is_same), as libtorch's.
  friend bool operator==(const List& a, const List& b) {
    if (a.is(b)) return true;
    if (a.size() != b.size()) return false;
    for (size_type i = 0; i < a.size(); ++i) {
      if constexpr (detail::list_has_is_same<T>::value) {
        if (!(*a.impl_)[i].is_same((*b.impl_)[i])) return false;
      } else {
        if (!((*a.impl_)[i] == (*b.impl_)[i])) return false;
      }
    }
    return true;
  }
  friend bool operator!=(const List& a, const List& b) { return !(a == b); }

 private:
  void check(size_type pos, const char* where) const {
    TORCH_CHECK(pos < impl_->size(), "c10::List::", where, ": index ", pos,
                " is out of range for a list of ", impl_->size(), " elements.");
  }

  std::shared_ptr<Vector> impl_;
};

}  // namespace c10
