// tools/train/plot.cc — see plot.h.
#include "tools/train/plot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "c10/util/Exception.h"
#include "c10/util/FileIO.h"
#include "tools/train/output.h"

namespace tools {
namespace train {
namespace {

std::string temp_dir() {
  const char* t = std::getenv("TMPDIR");
  return t != nullptr && *t != '\0' ? t : "/tmp";
}

// Note [gnuplot sees no file names]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The PNG's path is the user's, and gnuplot scripts can run commands
// (`system`, backquotes), so no user-given text enters the script: gnuplot
// runs in a private temporary folder, reads 'epochs.dat' there and writes the
// PNG to its standard output, which is the temporary file beside the target
// (See Note [Training outputs] in output.h).
const char kScript[] =
    "set terminal png size 900,500\n"
    "set title 'Ember //tools:train'\n"
    "set xlabel 'epoch'\n"
    "set ylabel 'train loss'\n"
    "set y2label 'test accuracy (%)'\n"
    "set ytics nomirror\nset y2tics\nset grid\nset key center right\n"
    "set xtics 1\n";

void write_small_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  TORCH_CHECK(f != nullptr, "train: --plot: cannot write ", path, ": ", std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  TORCH_CHECK(ok && closed, "train: --plot: cannot write ", path, ": ", std::strerror(errno));
}

}  // namespace

void plot_png(const std::string& png, const std::vector<EpochStats>& epochs) {
  TORCH_CHECK(!epochs.empty(), "train: --plot needs at least one epoch");
  std::string dir = temp_dir() + "/ember-plot-XXXXXX";
  TORCH_CHECK(mkdtemp(dir.data()) != nullptr, "train: --plot: cannot create a temporary folder "
              "under ", temp_dir(), ": ", std::strerror(errno));
  const std::string data = dir + "/epochs.dat", script = dir + "/plot.gp";
  int status = 0;
  try {
    std::ostringstream d;
    for (const EpochStats& e : epochs) {
      d << e.epoch << ' ' << e.train_loss << ' ' << 100 * e.test_accuracy << '\n';
    }
    write_small_file(data, d.str());
    write_small_file(script, std::string(kScript) +
                                 (epochs.size() == 1 ? "set xrange [0.5:1.5]\n" : "") +
                                 "plot 'epochs.dat' using 1:2 with linespoints title 'train loss' "
                                 "axes x1y1, 'epochs.dat' using 1:3 with linespoints title "
                                 "'test accuracy' axes x1y2\n");
    c10::AtomicFileWriter out("train: --plot", png);
    const pid_t pid = fork();
    TORCH_CHECK(pid >= 0, "train: --plot: fork failed: ", std::strerror(errno));
    if (pid == 0) {
      if (::chdir(dir.c_str()) != 0 || ::dup2(out.fd(), STDOUT_FILENO) < 0) _exit(126);
      execlp("gnuplot", "gnuplot", "plot.gp", static_cast<char*>(nullptr));
      _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    TORCH_CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 127),
                "train: --plot needs gnuplot, which was not found on PATH; install Debian's "
                "gnuplot-nox (./bazelw installs it)");
    TORCH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "train: gnuplot failed to draw '",
                png, "' (exit status ", WIFEXITED(status) ? WEXITSTATUS(status) : -1, ")");
    out.commit(/*require_bytes=*/true);
  } catch (...) {
    std::remove(data.c_str());
    std::remove(script.c_str());
    rmdir(dir.c_str());
    throw;
  }
  std::remove(data.c_str());
  std::remove(script.c_str());
  rmdir(dir.c_str());
}

}  // namespace train
}  // namespace tools
