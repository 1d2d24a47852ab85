// tools/launch/launcher.cc — See launcher.h.
#include "tools/launch/launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tools {
namespace launch {

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

std::string check(const Options& o) {
  if (o.nproc < 1 || o.nproc > 1024) {
    return "--nproc must be 1 to 1024, got " + std::to_string(o.nproc);
  }
  if (o.nnodes < 1 || o.nnodes > 1024) {
    return "--nnodes must be 1 to 1024, got " + std::to_string(o.nnodes);
  }
  if (o.node_rank < 0 || o.node_rank >= o.nnodes) {
    return "--node_rank must be 0 to nnodes - 1 = " + std::to_string(o.nnodes - 1) + ", got " +
           std::to_string(o.node_rank);
  }
  if (o.master_port < 0 || o.master_port > 65535) {
    return "--master_port must be 0 to 65535, got " + std::to_string(o.master_port);
  }
  if (o.nnodes > 1 && o.master_port == 0) {
    return "--master_port must be given with --nnodes > 1 (every machine uses the same one)";
  }
  return std::string();
}

int run(const Options& options, const std::vector<std::string>& args) {
  const std::string problem = check(options);
  if (!problem.empty() || args.empty()) {
    std::fprintf(stderr, "launch: %s\n", problem.empty() ? "no program to run" : problem.c_str());
    return 2;
  }
  const int nproc = options.nproc;
  const std::string addr = options.master_addr;
  int port = options.master_port;
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (port == 0) port = free_port(addr);
  const int world = options.nnodes * nproc;
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
      setenv("RANK", std::to_string(options.node_rank * nproc + rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("MASTER_ADDR", addr.c_str(), 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      execvp(argv[0], argv.data());
      std::fprintf(stderr, "launch: cannot run %s: %s\n", argv[0],
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

}  // namespace launch
}  // namespace tools
