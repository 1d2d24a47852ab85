// launch: starts N local processes of a distributed program, as torchrun
// does on one machine.
//
//   ./bazelw run //tools:launch -- --nproc=2 bazel-bin/examples/rpc_ping_pong
//   launch --nproc=4 [--master_addr=127.0.0.1] [--master_port=0] PROGRAM ARGS...
//
// Each process gets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT (a free port unless --master_port is given). Every line a
// process prints is prefixed with "[rank R] ". When one process fails (a
// non-zero exit or a signal), the others get SIGTERM, then SIGKILL after
// 3 s; launch exits with the first failure's status (128 + signal for a
// signal), or 0 when all succeed.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int free_port(const std::string& addr) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(addr == "127.0.0.1" || addr == "localhost"
                                ? INADDR_LOOPBACK
                                : INADDR_ANY);
  a.sin_port = 0;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    std::perror("launch: cannot find a free port");
    std::exit(2);
  }
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

void usage() {
  std::fprintf(stderr,
               "usage: launch --nproc=N [--master_addr=ADDR] "
               "[--master_port=PORT] PROGRAM [ARGS...]\n");
  std::exit(2);
}

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of the child's stdout+stderr
  std::string pending;  // a partial line
  bool exited = false;
  int status = 0;
};

void emit(int rank, Child& c, const char* data, size_t n, bool flush) {
  c.pending.append(data, n);
  size_t start = 0;
  for (;;) {
    size_t nl = c.pending.find('\n', start);
    if (nl == std::string::npos) break;
    std::printf("[rank %d] %.*s\n", rank, static_cast<int>(nl - start),
                c.pending.data() + start);
    start = nl + 1;
  }
  c.pending.erase(0, start);
  if (flush && !c.pending.empty()) {
    std::printf("[rank %d] %s\n", rank, c.pending.c_str());
    c.pending.clear();
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int nproc = -1;
  std::string addr = "127.0.0.1";
  int port = 0;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--nproc=", 0) == 0) {
      nproc = std::atoi(a.c_str() + 8);
    } else if (a.rfind("--master_addr=", 0) == 0) {
      addr = a.substr(14);
    } else if (a.rfind("--master_port=", 0) == 0) {
      port = std::atoi(a.c_str() + 14);
    } else if (a == "--") {
      ++i;
      break;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "launch: unknown flag %s\n", a.c_str());
      usage();
    } else {
      break;
    }
  }
  if (nproc < 1 || nproc > 1024 || i >= argc) usage();
  if (port == 0) port = free_port(addr);
  std::vector<Child> children(nproc);
  for (int rank = 0; rank < nproc; ++rank) {
    int fds[2];
    if (pipe(fds) != 0) {
      std::perror("launch: pipe");
      return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      close(fds[0]);
      close(fds[1]);
      setenv("RANK", std::to_string(rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      setenv("MASTER_ADDR", addr.c_str(), 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      execvp(argv[i], argv + i);
      std::fprintf(stderr, "launch: cannot run %s: %s\n", argv[i],
                   std::strerror(errno));
      _exit(127);
    }
    close(fds[1]);
    children[rank].pid = pid;
    children[rank].out = fds[0];
  }
  int first_failure = 0;
  bool terminating = false;
  auto term_at = std::chrono::steady_clock::time_point::max();
  int running = nproc;
  while (running > 0) {
    std::vector<pollfd> pfds;
    std::vector<int> ranks;
    for (int r = 0; r < nproc; ++r) {
      if (children[r].out >= 0) {
        pfds.push_back(pollfd{children[r].out, POLLIN, 0});
        ranks.push_back(r);
      }
    }
    poll(pfds.data(), pfds.size(), 50);
    for (size_t k = 0; k < pfds.size(); ++k) {
      if (!(pfds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child& c = children[ranks[k]];
      char buf[4096];
      ssize_t n = read(c.out, buf, sizeof(buf));
      if (n > 0) {
        emit(ranks[k], c, buf, static_cast<size_t>(n), false);
      } else {
        emit(ranks[k], c, "", 0, true);
        close(c.out);
        c.out = -1;
      }
    }
    for (int r = 0; r < nproc; ++r) {
      Child& c = children[r];
      if (c.exited) continue;
      int status = 0;
      if (waitpid(c.pid, &status, WNOHANG) != c.pid) continue;
      c.exited = true;
      c.status = status;
      --running;
      int code = WIFEXITED(status) ? WEXITSTATUS(status)
                                   : 128 + WTERMSIG(status);
      if (code != 0 && first_failure == 0) {
        first_failure = code;
        std::fprintf(stderr,
                     "launch: rank %d failed (%s %d); stopping the others\n",
                     r, WIFEXITED(status) ? "exit" : "signal",
                     WIFEXITED(status) ? code : WTERMSIG(status));
        terminating = true;
        term_at = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        for (auto& o : children) {
          if (!o.exited) kill(o.pid, SIGTERM);
        }
      }
    }
    if (terminating && std::chrono::steady_clock::now() > term_at) {
      for (auto& o : children) {
        if (!o.exited) kill(o.pid, SIGKILL);
      }
      term_at = std::chrono::steady_clock::time_point::max();
    }
  }
  for (int r = 0; r < nproc; ++r) {
    if (children[r].out >= 0) {
      char buf[4096];
      ssize_t n;
      while ((n = read(children[r].out, buf, sizeof(buf))) > 0) {
        emit(r, children[r], buf, static_cast<size_t>(n), false);
      }
      emit(r, children[r], "", 0, true);
      close(children[r].out);
    }
  }
  return first_failure;
}
