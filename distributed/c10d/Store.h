// distributed/c10d/Store.h — c10d::Store: the key-value store processes of a
// group meet through (PyTorch's c10d::Store), and PrefixStore, a namespace
// inside another store. The TCP store served by rank 0 is in TCPStore.h.
//
//   auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
//   store->set("ready", "yes");
//   std::vector<uint8_t> v = store->get("ready");   // waits for the key
//   int64_t n = store->add("count", 1);             // atomic counter
//   c10d::PrefixStore group("pg0", store);          // keys become "pg0/..."
//
// Every operation that waits (get, wait) gives up after the store's timeout
// (or the one passed) and throws c10::Error naming the keys; none waits for
// ever. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "c10/util/intrusive_ptr.h"

namespace c10d {

class Store : public c10::intrusive_ptr_target {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  ~Store() override = default;

  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  void set(const std::string& key, const std::string& value);

  // The value of `key`, waiting (up to the timeout) until it is set.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;

  // Adds `value` to the integer stored at `key` (0 when absent) and returns
  // the sum. The value is kept as decimal text, as PyTorch's stores do.
  virtual int64_t add(const std::string& key, int64_t value) = 0;

  // Sets `key` to `desired` if its value is `expected` (or if it is absent
  // and `expected` is empty); returns the value after the operation.
  virtual std::vector<uint8_t> compareSet(const std::string& key,
                                          const std::vector<uint8_t>& expected,
                                          const std::vector<uint8_t>& desired) = 0;

  // Whether `key` existed; it does not afterwards.
  virtual bool deleteKey(const std::string& key) = 0;

  // Whether every key exists now (does not wait).
  virtual bool check(const std::vector<std::string>& keys) = 0;

  virtual int64_t getNumKeys() = 0;

  // Waits until every key exists: up to the store's timeout, or `timeout`
  // (kNoTimeout: for ever).
  virtual void wait(const std::vector<std::string>& keys) = 0;
  virtual void wait(const std::vector<std::string>& keys,
                    std::chrono::milliseconds timeout) = 0;

  std::chrono::milliseconds getTimeout() const noexcept { return timeout_; }
  // The timeout of later get() and wait() calls.
  virtual void setTimeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 protected:
  std::chrono::milliseconds timeout_;
};

namespace detail {
// The integer an add() wrote (decimal text), or false when `text` is not one.
bool parse_counter(const std::string& text, int64_t* value);
}  // namespace detail

// c10d::PrefixStore — every key of `store` under "prefix/". Shares the
// underlying store (and its timeout).
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, c10::intrusive_ptr<Store> store);

  using Store::set;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  // The underlying store's count: PyTorch's PrefixStore does the same.
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  void setTimeout(std::chrono::milliseconds timeout) override;

  const c10::intrusive_ptr<Store>& getUnderlyingStore() const { return store_; }

 private:
  std::string joined(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> joined(const std::vector<std::string>& keys) const;

  std::string prefix_;
  c10::intrusive_ptr<Store> store_;
};

}  // namespace c10d
