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
#include <utility>
#include <vector>

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

void write_small_file(const char* flag, const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  TORCH_CHECK(f != nullptr, "train: ", flag, ": cannot write ", path, ": ", std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  TORCH_CHECK(ok && closed, "train: ", flag, ": cannot write ", path, ": ", std::strerror(errno));
}

// Runs `program` with `args` in a new temporary folder holding `inputs`
// (name, text), its standard output written atomically to `out_path`.
// No shell: the user's path never reaches the program's command line or
// script (See Note [gnuplot sees no file names]).
void run_to_file(const char* flag, const std::string& out_path, const char* program,
                 const std::vector<std::string>& args,
                 const std::vector<std::pair<std::string, std::string>>& inputs,
                 const char* package) {
  std::string dir = temp_dir() + "/ember-train-XXXXXX";
  TORCH_CHECK(mkdtemp(dir.data()) != nullptr, "train: ", flag, ": cannot create a temporary "
              "folder under ", temp_dir(), ": ", std::strerror(errno));
  auto clean = [&] {
    for (const auto& in : inputs) std::remove((dir + "/" + in.first).c_str());
    rmdir(dir.c_str());
  };
  try {
    for (const auto& in : inputs) write_small_file(flag, dir + "/" + in.first, in.second);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    c10::AtomicFileWriter out(std::string("train: ") + flag, out_path);
    const pid_t pid = fork();
    TORCH_CHECK(pid >= 0, "train: ", flag, ": fork failed: ", std::strerror(errno));
    if (pid == 0) {
      if (::chdir(dir.c_str()) != 0 || ::dup2(out.fd(), STDOUT_FILENO) < 0) _exit(126);
      execvp(program, argv.data());
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    TORCH_CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 127), "train: ", flag,
                " needs ", program, ", which was not found on PATH; install Debian's ",
                package, " (./bazelw installs it)");
    TORCH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "train: ", program,
                " failed to draw '", out_path, "' (exit status ",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1, ")");
    out.commit(/*require_bytes=*/true);
  } catch (...) {
    clean();
    throw;
  }
  clean();
}

}  // namespace

void plot_png(const std::string& png, const std::vector<EpochStats>& epochs) {
  TORCH_CHECK(!epochs.empty(), "train: --plot needs at least one epoch");
  std::ostringstream d;
  for (const EpochStats& e : epochs) {
    d << e.epoch << ' ' << e.train_loss << ' ' << 100 * e.test_accuracy << '\n';
  }
  const std::string script = std::string(kScript) +
                             (epochs.size() == 1 ? "set xrange [0.5:1.5]\n" : "") +
                             "plot 'epochs.dat' using 1:2 with linespoints title 'train loss' "
                             "axes x1y1, 'epochs.dat' using 1:3 with linespoints title "
                             "'test accuracy' axes x1y2\n";
  run_to_file("--plot", png, "gnuplot", {"plot.gp"},
              {{"epochs.dat", d.str()}, {"plot.gp", script}}, "gnuplot-nox");
}

void render_dot_png(const std::string& png, const std::string& dot) {
  run_to_file("--graph", png, "dot", {"-Tpng", "graph.dot"}, {{"graph.dot", dot}}, "graphviz");
}

}  // namespace train
}  // namespace tools
