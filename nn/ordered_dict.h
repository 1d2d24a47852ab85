// nn/ordered_dict.h — torch::OrderedDict: a map that remembers insertion
// order, as libtorch's (torch/ordered_dict.h).
//
//   torch::OrderedDict<std::string, at::Tensor> params("Parameter");
//   params.insert("weight", at::ones({2, 2}));
//   for (const auto& item : params) std::cout << item.key() << item.value();
//   params["bias"];   // throws: "Parameter 'bias' is not defined ..."
//
// Modules hold their parameters, buffers and children in one; the
// named_parameters() family returns one. Lookups by key are O(1) through an
// index; iteration follows insertion order. Not thread-safe: guard it
// yourself if threads share one that is being modified.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"

namespace torch {

// torch::OrderedDict<Key, Value>
//
// Keys are unique: inserting a key twice throws, naming the key and the
// dict's key description ("Parameter", "Submodule", ...), which error
// messages use for what the keys are.
template <typename Key, typename Value>
class OrderedDict {
 public:
  // torch::OrderedDict::Item — one key and its value.
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> initializer_list) : OrderedDict("Key") {
    items_.reserve(initializer_list.size());
    for (const Item& item : initializer_list) insert(item.key(), item.value());
  }

  // What the keys are, for error messages.
  const std::string& key_description() const noexcept { return key_description_; }

  // ---- element access ----
  Item& front() {
    check_not_empty("front");
    return items_.front();
  }
  const Item& front() const {
    check_not_empty("front");
    return items_.front();
  }
  Item& back() {
    check_not_empty("back");
    return items_.back();
  }
  const Item& back() const {
    check_not_empty("back");
    return items_.back();
  }
  // The index-th item in insertion order.
  Item& operator[](size_t index) {
    check_index(index);
    return items_[index];
  }
  const Item& operator[](size_t index) const {
    check_index(index);
    return items_[index];
  }
  // The value under `key`; throws when there is none.
  Value& operator[](const Key& key) {
    if (Value* value = find(key)) return *value;
    C10_THROW_ERROR(Error, not_defined_message(key));
  }
  const Value& operator[](const Key& key) const {
    if (const Value* value = find(key)) return *value;
    C10_THROW_ERROR(Error, not_defined_message(key));
  }

  // ---- lookup ----
  // The value under `key`, or null.
  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  // ---- iteration (insertion order) ----
  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }

  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }

  // ---- modifiers ----
  // Inserts `key` -> `value` at the end and returns the stored value (a
  // reference valid until the next insertion); throws if the key is
  // already present.
  template <typename K, typename V>
  Value& insert(K&& key, V&& value) {
    Key k(std::forward<K>(key));
    TORCH_CHECK(index_.count(k) == 0, "OrderedDict::insert: ", key_description_, " '", k,
                "' already defined; each key may appear once. Use a different name, or "
                "update the existing entry through operator[].");
    index_.emplace(k, items_.size());
    items_.emplace_back(std::move(k), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  Value& insert(Key key, Value&& value) {
    return insert<Key, Value>(std::move(key), std::move(value));
  }
  // Inserts every item of `other`, overwriting the values of keys present
  // in both (their position stays).
  void update(const OrderedDict& other) {
    for (const Item& item : other) {
      if (Value* value = find(item.key())) {
        *value = item.value();
      } else {
        insert(item.key(), item.value());
      }
    }
  }
  // Removes `key`; throws if it is absent.
  void erase(const Key& key) {
    auto it = index_.find(key);
    TORCH_CHECK(it != index_.end(), "OrderedDict::erase: ", key_description_, " '", key,
                "' is not defined; there is nothing to remove. Check contains() first.");
    const size_t position = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    for (auto& entry : index_) {
      if (entry.second > position) --entry.second;
    }
  }
  void clear() {
    index_.clear();
    items_.clear();
  }
  void reserve(size_t requested_capacity) {
    index_.reserve(requested_capacity);
    items_.reserve(requested_capacity);
  }

  // ---- views ----
  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.pair());
    return out;
  }

 private:
  std::string not_defined_message(const Key& key) const {
    return c10::str("OrderedDict: ", key_description_, " '", key,
                    "' is not defined; the keys are those inserted, see keys().");
  }
  void check_index(size_t index) const {
    TORCH_CHECK(index < items_.size(), "OrderedDict: index ", index,
                " is out of range for a dict of size ", items_.size(),
                "; valid indices are 0 to size() - 1.");
  }
  void check_not_empty(const char* where) const {
    TORCH_CHECK(!items_.empty(), "OrderedDict::", where,
                ": the dict is empty; insert an item first or check is_empty().");
  }

  std::unordered_map<Key, size_t> index_;
  std::vector<Item> items_;
  std::string key_description_;
};

}  // namespace torch
