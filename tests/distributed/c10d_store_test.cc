// c10d::TCPStore and PrefixStore in one process (the server and its
// clients on threads): every operation, binary keys and values, waits that
// block until a key comes and that time out naming the keys, the server's
// shutdown failing pending waits, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <torch/distributed.h>

#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

c10::intrusive_ptr<c10d::TCPStore> server(milliseconds timeout = milliseconds(10000)) {
  c10d::TCPStoreOptions o;
  o.port = 0;  // a free one
  o.isServer = true;
  o.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>("127.0.0.1", o);
}

c10::intrusive_ptr<c10d::TCPStore> client(uint16_t port, milliseconds timeout = milliseconds(10000)) {
  c10d::TCPStoreOptions o;
  o.port = port;
  o.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>("127.0.0.1", o);
}

TEST(TCPStore, EveryOperationFromServerAndClient) {
  auto s = server();
  ASSERT_GT(s->getPort(), 0);
  auto c = client(s->getPort());
  s->set("a", "1");
  EXPECT_EQ(c->get("a"), bytes("1"));
  // Any bytes, in keys and values.
  const std::string binary("\0\x01\xff\n", 4);
  c->set(binary, std::vector<uint8_t>{0, 255, 7});
  EXPECT_EQ(s->get(binary), (std::vector<uint8_t>{0, 255, 7}));
  // add: from absent, then on.
  EXPECT_EQ(c->add("n", 5), 5);
  EXPECT_EQ(s->add("n", -2), 3);
  EXPECT_EQ(c->get("n"), bytes("3"));
  // compareSet: absent and expected empty sets; a match swaps; a mismatch
  // returns the current value.
  EXPECT_EQ(c->compareSet("cs", {}, bytes("x")), bytes("x"));
  EXPECT_EQ(c->compareSet("cs", bytes("x"), bytes("y")), bytes("y"));
  EXPECT_EQ(c->compareSet("cs", bytes("x"), bytes("z")), bytes("y"));
  EXPECT_EQ(c->compareSet("absent", bytes("x"), bytes("z")), bytes("x"));
  EXPECT_FALSE(c->check({"absent"}));
  EXPECT_TRUE(c->check({"a", "n", "cs"}));
  EXPECT_FALSE(c->check({"a", "absent"}));
  EXPECT_EQ(c->getNumKeys(), 4);  // a, binary, n, cs
  EXPECT_TRUE(c->deleteKey("a"));
  EXPECT_FALSE(c->deleteKey("a"));
  EXPECT_EQ(s->getNumKeys(), 3);
  c->wait({"n", "cs"});  // present: returns at once
  EXPECT_THAT(errorOf([&] { c->add(binary, 1); }),
              HasSubstr("is not an integer; add() works on keys only add() wrote"));
  EXPECT_THAT(errorOf([&] { c->check({}); }), HasSubstr("check needs at least one key"));
}

TEST(TCPStore, GetAndWaitBlockUntilTheKeyIsSet) {
  auto s = server();
  auto c = client(s->getPort());
  std::thread setter([&] {
    std::this_thread::sleep_for(milliseconds(150));
    s->set("late", "here");
    std::this_thread::sleep_for(milliseconds(50));
    s->set("later", "too");
  });
  const auto start = Clock::now();
  EXPECT_EQ(c->get("late"), bytes("here"));
  EXPECT_GE(Clock::now() - start, milliseconds(100));
  c->wait({"late", "later"});
  setter.join();
}

TEST(TCPStore, WaitAndGetTimeOutNamingTheKeys) {
  auto s = server(milliseconds(300));
  const auto start = Clock::now();
  EXPECT_THAT(errorOf([&] { s->get("never"); }),
              HasSubstr("TCPStore: get of ['never'] timed out after 300 ms"));
  EXPECT_LT(Clock::now() - start, milliseconds(5000));
  EXPECT_THAT(errorOf([&] { s->wait({"x", "y"}, milliseconds(100)); }),
              HasSubstr("wait of ['x', 'y'] timed out after 100 ms"));
  s->set("x", "1");
  s->set("y", "1");
  s->wait({"x", "y"}, milliseconds(100));
}

TEST(TCPStore, AClientWaitsForALateServerAndTimesOutWithoutOne) {
  c10d::TCPStoreOptions o;
  o.port = 0;
  o.isServer = true;
  // A client started before its server: it waits for it (up to the timeout).
  auto first = server();
  const uint16_t port = first->getPort();
  first.reset();  // the port is free again (nothing listens)
  std::thread late([&] {
    std::this_thread::sleep_for(milliseconds(200));
  });
  late.join();
  auto lonely = client(port, milliseconds(300));
  EXPECT_THAT(errorOf([&] { lonely->set("k", "v"); }),
              HasSubstr("TCPStore: set of ['k'] timed out after 300 ms"));
}

TEST(TCPStore, ServerShutdownFailsPendingWaits) {
  auto s = server();
  auto c = client(s->getPort(), milliseconds(20000));
  std::string error;
  std::thread waiter([&] { error = errorOf([&] { c->get("never"); }); });
  std::this_thread::sleep_for(milliseconds(200));
  const auto start = Clock::now();
  s.reset();  // ends the store for everyone
  waiter.join();
  EXPECT_LT(Clock::now() - start, milliseconds(5000));
  EXPECT_THAT(error, HasSubstr("the store's server shut down while this call waited for ['never']"));
}

TEST(TCPStore, NumWorkersMakesTheServerWaitForEveryClient) {
  c10d::TCPStoreOptions o;
  o.port = 0;
  o.isServer = true;
  o.numWorkers = 1;  // just itself: returns at once
  auto s = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", o);
  EXPECT_EQ(s->getNumKeys(), 0);  // the store's own keys are not counted
  // A server waiting for 2 workers times out when only it comes.
  o.numWorkers = 2;
  o.timeout = milliseconds(300);
  EXPECT_THAT(errorOf([&] { c10d::TCPStore("127.0.0.1", o); }),
              HasSubstr("waiting for all workers to connect: wait of ['all_joined'] timed out"));
}

TEST(PrefixStore, KeysLiveUnderThePrefix) {
  auto s = server();
  c10d::PrefixStore a("a", s), b("b", s);
  a.set("k", "1");
  b.set("k", "2");
  EXPECT_EQ(a.get("k"), bytes("1"));
  EXPECT_EQ(b.get("k"), bytes("2"));
  EXPECT_EQ(s->get("a/k"), bytes("1"));
  EXPECT_EQ(a.add("n", 2), 2);
  EXPECT_TRUE(a.check({"k", "n"}));
  EXPECT_FALSE(b.check({"n"}));
  EXPECT_TRUE(b.deleteKey("k"));
  EXPECT_EQ(a.getNumKeys(), 2);  // the underlying store's count, as PyTorch
  a.setTimeout(milliseconds(100));
  EXPECT_THAT(errorOf([&] { a.wait({"zz"}); }), HasSubstr("wait of ['a/zz'] timed out after 100 ms"));
  EXPECT_THAT(errorOf([] { c10d::PrefixStore("p", c10::intrusive_ptr<c10d::Store>()); }),
              HasSubstr("PrefixStore: expected a store to wrap, got none."));
}

TEST(TCPStore, ManyThreadsAddConcurrently) {
  auto s = server();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([port = s->getPort()] {
      auto c = client(port);
      for (int i = 0; i < 50; ++i) c->add("counter", 1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(s->add("counter", 0), 200);
}

std::string temp_path(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(FileStore, EveryOperationSharedThroughTheFile) {
  const std::string path = temp_path("every.store");
  std::remove(path.c_str());
  c10d::FileStore a(path, milliseconds(10000)), b(path, milliseconds(10000));
  a.set("k", "v");
  EXPECT_EQ(b.get("k"), bytes("v"));
  const std::string binary("\0\x01\xff", 3);
  b.set(binary, std::vector<uint8_t>{0, 255});
  EXPECT_EQ(a.get(binary), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(a.add("n", 5), 5);
  EXPECT_EQ(b.add("n", -2), 3);
  EXPECT_EQ(a.compareSet("cs", {}, bytes("x")), bytes("x"));
  EXPECT_EQ(b.compareSet("cs", bytes("x"), bytes("y")), bytes("y"));
  EXPECT_EQ(a.compareSet("cs", bytes("x"), bytes("z")), bytes("y"));
  EXPECT_EQ(a.compareSet("absent", bytes("x"), bytes("z")), bytes("x"));
  EXPECT_TRUE(b.check({"k", "n", "cs"}));
  EXPECT_FALSE(b.check({"k", "absent"}));
  EXPECT_EQ(a.getNumKeys(), 4);
  EXPECT_TRUE(b.deleteKey("k"));
  EXPECT_FALSE(a.deleteKey("k"));
  EXPECT_EQ(b.getNumKeys(), 3);
  EXPECT_THAT(errorOf([&] { a.add("cs", 1); }), HasSubstr("the value is not an integer"));
  // A third store opened later reads the same state from the file.
  c10d::FileStore later(path);
  EXPECT_EQ(later.get("n"), bytes("3"));
  EXPECT_FALSE(later.check({"k"}));
}

TEST(FileStore, WaitBlocksUntilAnotherThreadSetsAndTimesOut) {
  const std::string path = temp_path("wait.store");
  std::remove(path.c_str());
  c10d::FileStore a(path, milliseconds(5000)), b(path, milliseconds(5000));
  std::thread setter([&] {
    std::this_thread::sleep_for(milliseconds(100));
    b.set("late", "here");
  });
  EXPECT_EQ(a.get("late"), bytes("here"));
  setter.join();
  EXPECT_THAT(errorOf([&] { a.wait({"never"}, milliseconds(100)); }),
              HasSubstr("FileStore: wait of ['never'] timed out after 100 ms (file " + path));
  // Concurrent adds from several threads, each with its own store object.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&path] {
      c10d::FileStore s(path);
      for (int i = 0; i < 25; ++i) s.add("counter", 1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(a.add("counter", 0), 100);
}

TEST(FileStore, UnusableAndDamagedFilesAreRefused) {
  EXPECT_THAT(errorOf([] { c10d::FileStore("/nonexistent-folder/x.store"); }),
              HasSubstr("FileStore: cannot open '/nonexistent-folder/x.store': No such file"));
  const std::string path = temp_path("damaged.store");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("not a store", f);
    std::fclose(f);
  }
  EXPECT_THAT(errorOf([&] { c10d::FileStore s(path); }),
              HasSubstr("is not a store file or is damaged (at byte 1 of 11)"));
}

}  // namespace
