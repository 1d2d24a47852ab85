// distributed/c10d/Store.cc — c10d::Store's helpers and PrefixStore.
#include "distributed/c10d/Store.h"

#include <cerrno>
#include <cstdlib>
#include <utility>

#include "c10/util/Exception.h"

namespace c10d {

constexpr std::chrono::milliseconds Store::kDefaultTimeout;
constexpr std::chrono::milliseconds Store::kNoTimeout;

namespace detail {
bool parse_counter(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  *value = std::strtoll(text.c_str(), &end, 10);
  return end == text.c_str() + text.size() && errno == 0;
}
}  // namespace detail

void Store::set(const std::string& key, const std::string& value) {
  set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

PrefixStore::PrefixStore(std::string prefix, c10::intrusive_ptr<Store> store)
    : Store(store ? store->getTimeout() : kDefaultTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  TORCH_CHECK(store_, "PrefixStore: expected a store to wrap, got none.");
}

std::vector<std::string> PrefixStore::joined(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) out.push_back(joined(k));
  return out;
}

void PrefixStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  store_->set(joined(key), value);
}

std::vector<uint8_t> PrefixStore::get(const std::string& key) { return store_->get(joined(key)); }

int64_t PrefixStore::add(const std::string& key, int64_t value) {
  return store_->add(joined(key), value);
}

std::vector<uint8_t> PrefixStore::compareSet(const std::string& key,
                                             const std::vector<uint8_t>& expected,
                                             const std::vector<uint8_t>& desired) {
  return store_->compareSet(joined(key), expected, desired);
}

bool PrefixStore::deleteKey(const std::string& key) { return store_->deleteKey(joined(key)); }

bool PrefixStore::check(const std::vector<std::string>& keys) {
  return store_->check(joined(keys));
}

int64_t PrefixStore::getNumKeys() { return store_->getNumKeys(); }

void PrefixStore::wait(const std::vector<std::string>& keys) { store_->wait(joined(keys)); }

void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  store_->wait(joined(keys), timeout);
}

void PrefixStore::setTimeout(std::chrono::milliseconds timeout) {
  Store::setTimeout(timeout);
  store_->setTimeout(timeout);
}

}  // namespace c10d
