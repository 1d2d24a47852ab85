// distributed/c10d/FileStore.h — c10d::FileStore: a Store in one file that
// every process opens (PyTorch's FileStore), for jobs on one machine or on a
// shared file system where no process can serve a TCPStore.
//
//   auto store = c10::make_intrusive<c10d::FileStore>("/shared/job42.store");
//   auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size);
//
// Each operation takes an exclusive flock(2) on the file, reads its log of
// records and appends to it (Note [FileStore's file]). get() and wait()
// poll every 10 ms up to the timeout. The file is left behind: delete it
// when the job is done (a later job must not find the old keys).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "distributed/c10d/Store.h"

namespace c10d {

class FileStore : public Store {
 public:
  explicit FileStore(std::string path, std::chrono::milliseconds timeout = kDefaultTimeout);

  using Store::set;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& desired) override;
  bool deleteKey(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t getNumKeys() override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace c10d
