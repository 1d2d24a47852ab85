// tools/train/plot.cc — see plot.h.
#include "tools/train/plot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "c10/util/Exception.h"

namespace tools {
namespace train {
namespace {

// gnuplot strings are single-quoted: a quote inside is doubled.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    q += c;
    if (c == '\'') q += '\'';
  }
  return q + "'";
}

std::string temp_dir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != '\0' ? t : "/tmp";
}

}  // namespace

void plot_png(const std::string& png, const std::vector<EpochStats>& epochs) {
  TORCH_CHECK(!epochs.empty(), "train: --plot needs at least one epoch");
  std::string dir = temp_dir() + "/ember-plot-XXXXXX";
  TORCH_CHECK(mkdtemp(dir.data()) != nullptr, "train: --plot: cannot create a temporary folder "
              "under ", temp_dir(), ": ", std::strerror(errno));
  const std::string data = dir + "/epochs.dat", script = dir + "/plot.gp";
  {
    std::ofstream d(data);
    for (const EpochStats& e : epochs) {
      d << e.epoch << ' ' << e.train_loss << ' ' << 100 * e.test_accuracy << '\n';
    }
    std::ofstream s(script);
    s << "set terminal png size 900,500\n"
      << "set output " << quoted(png) << "\n"
      << "set title 'Ember //tools:train'\n"
      << "set xlabel 'epoch'\n"
      << "set ylabel 'train loss'\n"
      << "set y2label 'test accuracy (%)'\n"
      << "set ytics nomirror\nset y2tics\nset grid\nset key center right\n"
      << "set xtics 1\n"
      << (epochs.size() == 1 ? "set xrange [0.5:1.5]\n" : "")
      << "plot " << quoted(data) << " using 1:2 with linespoints title 'train loss' axes x1y1, "
      << quoted(data) << " using 1:3 with linespoints title 'test accuracy' axes x1y2\n";
    TORCH_CHECK(d.good() && s.good(), "train: --plot: cannot write to ", dir);
  }
  const pid_t pid = fork();
  TORCH_CHECK(pid >= 0, "train: --plot: fork failed: ", std::strerror(errno));
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::remove(data.c_str());
  std::remove(script.c_str());
  rmdir(dir.c_str());
  TORCH_CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 127),
              "train: --plot needs gnuplot, which was not found on PATH; install Debian's "
              "gnuplot-nox (./bazelw installs it)");
  TORCH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "train: gnuplot failed to draw '",
              png, "' (exit status ", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
              "); check that the folder exists and is writable");
}

}  // namespace train
}  // namespace tools
