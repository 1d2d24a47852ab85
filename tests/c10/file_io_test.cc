// tests/c10/file_io_test.cc — c10/util/FileIO.h: input files are opened
// without blocking and refused by name when they are not regular files;
// outputs are written atomically, every failure named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "c10/util/Exception.h"
#include "c10/util/FileIO.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

template <typename Fn>
std::string error_of(Fn &&fn) {
  try {
    fn();
  } catch (const c10::Error &e) {
    return e.what();
  }
  return "(no error)";
}

class FileIO : public ::testing::Test {
 protected:
  void SetUp() override {
    const char *base = std::getenv("TEST_TMPDIR");
    dir_ = std::string(base ? base : "/tmp") + "/file_io_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string path(const std::string &name) const { return dir_ + "/" + name; }
  static std::string read(const std::string &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The names in the folder other than `keep`: temporaries left behind.
  int entries() const {
    int n = 0;
    for (const std::string &e : {std::string("ls -A '") + dir_ + "' | wc -l"}) {
      FILE *f = ::popen(e.c_str(), "r");
      if (f != nullptr) {
        if (std::fscanf(f, "%d", &n) != 1) n = -1;
        ::pclose(f);
      }
    }
    return n;
  }

  std::string dir_;
};

TEST_F(FileIO, OpensARegularFileAndReportsItsSize) {
  { std::ofstream(path("a.bin"), std::ios::binary) << "hello"; }
  c10::UniqueFd fd = c10::open_regular_file("reader", path("a.bin"), "hint");
  EXPECT_GE(fd.get(), 0);
  EXPECT_EQ(fd.size(), 5u);
  char buf[5];
  EXPECT_TRUE(c10::pread_exactly(fd.get(), buf, 5, 0, "reader", path("a.bin")));
  EXPECT_EQ(std::string(buf, 5), "hello");
  EXPECT_FALSE(c10::pread_exactly(fd.get(), buf, 2, 4, "reader", path("a.bin")));
  c10::UniqueFd moved = std::move(fd);
  EXPECT_EQ(fd.get(), -1);
  EXPECT_GE(moved.get(), 0);
}

TEST_F(FileIO, RefusesSpecialFilesByNameWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  EXPECT_THAT(error_of([&] { c10::open_regular_file("reader", path("fifo"), "Pass a file."); }),
              HasSubstr("reader: cannot open " + path("fifo") +
                        ": it is a FIFO (named pipe), not a regular file. Pass a file."));
  EXPECT_THAT(error_of([&] { c10::open_regular_file("reader", dir_, "Pass a file."); }),
              HasSubstr("cannot open " + dir_ + ": it is a directory, not a regular file"));
  ASSERT_EQ(::symlink("loop", path("loop").c_str()), 0);
  EXPECT_THAT(error_of([&] { c10::open_regular_file("reader", path("loop"), "h"); }),
              HasSubstr("cannot open " + path("loop") + ": it is a symbolic link loop"));
  EXPECT_THAT(error_of([&] { c10::open_regular_file("reader", path("none"), "h"); }),
              AllOf(HasSubstr("reader: cannot open " + path("none") + ": No such file"),
                    HasSubstr("Check the path and its permissions.")));
  EXPECT_EQ(c10::describe_path(path("fifo")), "a FIFO (named pipe)");
  EXPECT_EQ(c10::describe_path(path("loop")), "a symbolic link loop");
  EXPECT_EQ(c10::describe_path(path("none")), "missing");
  ASSERT_EQ(::symlink("none", path("dangling").c_str()), 0);
  EXPECT_EQ(c10::describe_path(path("dangling")), "a symbolic link to a missing file");
}

TEST_F(FileIO, WriterReplacesTheTargetOnlyOnCommit) {
  const std::string target = path("out.txt");
  { std::ofstream(target) << "old"; }
  {
    c10::AtomicFileWriter w("save", target);
    w.write("new content");
    EXPECT_EQ(read(target), "old");  // nothing visible before commit
    w.commit();
    EXPECT_THAT(error_of([&] { w.write("more"); }),
                HasSubstr("save: '" + target + "' was already committed"));
  }
  EXPECT_EQ(read(target), "new content");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(entries(), 1);  // no temporary left

  {
    c10::AtomicFileWriter abandoned("save", target);
    abandoned.write("half");
  }  // destroyed without commit: the target keeps its content
  EXPECT_EQ(read(target), "new content");
  EXPECT_EQ(entries(), 1);
}

TEST_F(FileIO, WriterNamesEveryFailure) {
  EXPECT_THAT(error_of([&] { c10::AtomicFileWriter("save", path("no/such/f")); }),
              AllOf(HasSubstr("save: cannot create a temporary file next to '" + path("no/such/f") +
                              "': No such file or directory"),
                    HasSubstr("check that its folder exists and is writable")));
  EXPECT_THAT(error_of([&] { c10::AtomicFileWriter("--metrics", "/dev/full"); }),
              HasSubstr("--metrics '/dev/full' is a character device, not a regular file"));
  EXPECT_THAT(error_of([&] { c10::AtomicFileWriter("save", dir_); }),
              HasSubstr("save '" + dir_ + "' is a directory, not a regular file"));
  c10::AtomicFileWriter empty("save", path("empty"));
  EXPECT_THAT(error_of([&] { empty.commit(/*require_bytes=*/true); }),
              HasSubstr("save: nothing was written to '" + path("empty") + "'"));
  // The target turned into a FIFO while the writer was open: commit refuses.
  c10::AtomicFileWriter late("save", path("late"));
  late.write("x");
  ASSERT_EQ(::mkfifo(path("late").c_str(), 0644), 0);
  EXPECT_THAT(error_of([&] { late.commit(); }),
              HasSubstr("'" + path("late") + "' is a FIFO (named pipe), not a regular file"));
}

}  // namespace
