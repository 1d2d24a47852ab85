// distributed/c10d/TCPStore.h — c10d::TCPStore: a Store served by one
// process (rank 0, is_server) over gRPC and used by every process of the
// group, on one machine or several (PyTorch's TCPStore, with the RPC
// package's transport instead of its own sockets).
//
//   c10d::TCPStoreOptions opts;
//   opts.port = 29500;
//   opts.isServer = (rank == 0);
//   opts.numWorkers = world_size;   // the server waits for them all
//   auto store = c10::make_intrusive<c10d::TCPStore>("10.0.0.1", opts);
//
// The server listens on every interface (0.0.0.0) at `port` (0: a free port,
// read back with getPort()); clients connect to host:port, waiting for the
// server to come up for up to the timeout. A server's store lives as long as
// its TCPStore object: destroying it ends the store for everyone (pending
// waits fail with "the store's server shut down").
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distributed/c10d/Store.h"

namespace c10d {

struct TCPStoreOptions {
  uint16_t port = 29500;
  bool isServer = false;
  // With a value: the constructor returns when this many TCPStore objects
  // (server included) have connected (waitWorkers), or throws at the timeout.
  std::optional<size_t> numWorkers;
  bool waitWorkers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
};

class TCPStore : public Store {
 public:
  TCPStore(std::string host, const TCPStoreOptions& options = TCPStoreOptions());
  ~TCPStore() override;

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

  // The port the server listens on (the chosen one when options.port was 0).
  uint16_t getPort() const noexcept { return port_; }
  const std::string& getHost() const noexcept { return host_; }

  struct Server;
  struct Client;

 private:
  // Counts this client in and, on the server, waits for numWorkers.
  void join(const TCPStoreOptions& options);

  std::string host_;
  uint16_t port_;
  std::unique_ptr<Server> server_;  // when isServer
  std::unique_ptr<Client> client_;
};

}  // namespace c10d
