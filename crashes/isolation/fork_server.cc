#include "crashes/isolation/fork_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "crashes/isolation/spawn.h"
#include "crashes/isolation/worker.h"

namespace dpfuzz {
namespace {

constexpr int kServerFd = 5;  // The server's end of its socket.
constexpr int kFdsPerWorker = 3;
constexpr size_t kMaxMessage = 1 << 16;
constexpr int kReplyTimeoutMs = 10000;

int ThreadCount() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int n = 0;
  while (const dirent* e = ::readdir(dir)) n += e->d_name[0] != '.' ? 1 : 0;
  ::closedir(dir);
  return n;
}

// In the forked worker: the received descriptors in their places, then
// the worker's loop, once the intermediate process that forked it is gone
// (so that RunWorker's parent-death signal is tied to the supervisor).
[[noreturn]] void BecomeWorker(const std::vector<std::string>& args,
                               const int (&fds)[kFdsPerWorker],
                               pid_t intermediate) {
  ::close(kServerFd);
  ::setpgid(0, 0);
  int high[kFdsPerWorker];
  for (int i = 0; i < kFdsPerWorker; ++i) {
    high[i] = ::fcntl(fds[i], F_DUPFD, 100);
    ::close(fds[i]);
  }
  const int null = ::open("/dev/null", O_RDONLY);
  ::dup2(null, 0);
  if (null > 0) ::close(null);
  ::dup2(high[2], 1);
  ::dup2(high[2], 2);
  ::dup2(high[0], kTicketFd);
  ::dup2(high[1], kReportFd);
  for (int fd : high) ::close(fd);
  while (::getppid() == intermediate) ::usleep(50);
  absl::StatusOr<WorkerConfig> config = ParseWorkerArgs(args);
  std::exit(config.ok() ? RunWorker(*config) : 2);
}

// Forks a worker through an intermediate process; "P<pid>" or "E<why>".
std::string ForkWorker(const std::vector<std::string>& args,
                       const int (&fds)[kFdsPerWorker]) {
  const int threads = ThreadCount();
  if (threads != 1) {
    return absl::StrCat("Ethe fork server runs ", threads,
                        " threads: forking it is not safe");
  }
  int pid_pipe[2];
  if (::pipe2(pid_pipe, O_CLOEXEC) != 0) return "Epipe failed";
  const pid_t intermediate = ::fork();
  if (intermediate == 0) {
    const pid_t self = ::getpid();
    const pid_t worker = ::fork();
    if (worker == 0) {
      ::close(pid_pipe[0]);
      ::close(pid_pipe[1]);
      BecomeWorker(args, fds, self);
    }
    (void)!::write(pid_pipe[1], &worker, sizeof(worker));
    ::_exit(0);
  }
  ::close(pid_pipe[1]);
  pid_t worker = -1;
  if (intermediate > 0) {
    while (::read(pid_pipe[0], &worker, sizeof(worker)) < 0 && errno == EINTR) {
    }
    int status = 0;
    while (::waitpid(intermediate, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(pid_pipe[0]);
  if (worker <= 0) return absl::StrCat("Efork failed: ", std::strerror(errno));
  return absl::StrCat("P", worker);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ForkServer>> ForkServer::Start(
    const std::string& executable, bool malloc_check) {
  // Forked workers become the supervisor's children (Note [Forked workers]).
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return ErrnoError("subreaper");
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    return ErrnoError("socketpair");
  }
  absl::StatusOr<pid_t> pid =
      SpawnDpfuzz(executable, {kForkServerCommand}, {{sockets[1], kServerFd}},
                  malloc_check);
  ::close(sockets[1]);
  if (!pid.ok()) {
    ::close(sockets[0]);
    return pid.status();
  }
  return std::unique_ptr<ForkServer>(new ForkServer(*pid, sockets[0]));
}

ForkServer::~ForkServer() {
  ::close(socket_);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

absl::StatusOr<pid_t> ForkServer::Fork(
    const std::vector<std::string>& worker_args, WorkerFds fds) {
  if (broken_) return absl::UnavailableError("the fork server failed before");
  broken_ = true;  // Until this fork succeeds.
  std::string message = absl::StrJoin(worker_args, std::string(1, '\0'));
  if (message.size() >= kMaxMessage) {
    return absl::InvalidArgumentError("worker arguments too long to send");
  }
  iovec data{message.data(), message.size()};
  const int sent_fds[kFdsPerWorker] = {fds.tickets, fds.reports, fds.output};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(sent_fds))] = {};
  msghdr m{};
  m.msg_iov = &data;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(sent_fds));
  std::memcpy(CMSG_DATA(c), sent_fds, sizeof(sent_fds));
  if (::sendmsg(socket_, &m, MSG_NOSIGNAL) < 0) {
    return ErrnoError("sending to the fork server");
  }
  pollfd p{socket_, POLLIN, 0};
  if (::poll(&p, 1, kReplyTimeoutMs) != 1) {
    return absl::DeadlineExceededError("the fork server did not answer");
  }
  char reply[512];
  const ssize_t n = ::recv(socket_, reply, sizeof(reply), 0);
  if (n <= 0) return absl::UnavailableError("the fork server is gone");
  const std::string text(reply, static_cast<size_t>(n));
  int pid = 0;
  if (text[0] != 'P' || !absl::SimpleAtoi(text.substr(1), &pid)) {
    return absl::UnavailableError(text.substr(1));
  }
  broken_ = false;
  return static_cast<pid_t>(pid);
}

std::shared_ptr<ForkServer> SharedForkServer(const std::string& executable,
                                             bool malloc_check) {
  // Never destroyed: the servers die with this process (PR_SET_PDEATHSIG).
  static auto* servers =
      new std::map<std::pair<std::string, bool>, std::shared_ptr<ForkServer>>;
  std::shared_ptr<ForkServer>& server = (*servers)[{executable, malloc_check}];
  if (server == nullptr || server->broken()) {
    absl::StatusOr<std::unique_ptr<ForkServer>> started =
        ForkServer::Start(executable, malloc_check);
    server = started.ok() ? std::move(*started) : nullptr;
  }
  return server;
}

int RunForkServer() {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 1;  // The supervisor is already gone.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  std::string buffer(kMaxMessage, '\0');
  for (;;) {
    iovec data{buffer.data(), buffer.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kFdsPerWorker)];
    msghdr m{};
    m.msg_iov = &data;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof(control);
    const ssize_t n = ::recvmsg(kServerFd, &m, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;  // The supervisor closed its end.
    const cmsghdr* c = CMSG_FIRSTHDR(&m);
    int fds[kFdsPerWorker] = {-1, -1, -1};
    std::string reply;
    if (c == nullptr || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(fds))) {
      reply = "Ea request without the worker's three descriptors";
    } else {
      std::memcpy(fds, CMSG_DATA(c), sizeof(fds));
      const std::vector<std::string> args = absl::StrSplit(
          absl::string_view(buffer.data(), static_cast<size_t>(n)), '\0');
      reply = ForkWorker(args, fds);
    }
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    if (::send(kServerFd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) {
      return 1;
    }
  }
}

}  // namespace dpfuzz
