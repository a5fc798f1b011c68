#include "crashes/isolation/worker_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "crashes/isolation/spawn.h"

namespace dpfuzz {
namespace {

constexpr size_t kLastLines = 40;

}  // namespace

namespace {
bool self_runs_workers = false;
}  // namespace

void MarkSelfAsWorkerExecutable() { self_runs_workers = true; }

absl::StatusOr<std::string> SelfExecutable() {
  char buffer[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ErrnoError("readlink /proc/self/exe");
  const std::string self(buffer, static_cast<size_t>(n));
  if (!self_runs_workers) {
    return absl::FailedPreconditionError(absl::StrCat(
        self,
        " does not run dpfuzz workers (its main is not DpfuzzMain): "
        "name the dpfuzz executable to start them "
        "(SupervisorOptions::executable)"));
  }
  return self;
}

absl::StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(
    const WorkerProcessOptions& options) {
  DPFUZZ_ASSIGN_OR_RETURN(WorkerSlot slot,
                          WorkerSlot::Create(options.config.slot_path));
  int tickets[2], reports[2], output[2];
  if (::pipe2(tickets, O_CLOEXEC) != 0) return ErrnoError("pipe");
  if (::pipe2(reports, O_CLOEXEC) != 0) return ErrnoError("pipe");
  if (::pipe2(output, O_CLOEXEC) != 0) return ErrnoError("pipe");
  const std::vector<std::string> args = WorkerArgs(options.config);
  absl::StatusOr<pid_t> pid = absl::UnavailableError("no fork server");
  if (options.fork_server != nullptr) {
    pid = options.fork_server->Fork(args, {tickets[0], reports[1], output[1]});
  }
  if (!pid.ok()) {  // Spawned afresh (Note [Forked workers]).
    std::vector<std::string> spawn_args = {kWorkerCommand};
    spawn_args.insert(spawn_args.end(), args.begin(), args.end());
    pid = SpawnDpfuzz(options.executable, spawn_args,
                      {{output[1], 1},
                       {output[1], 2},
                       {tickets[0], kTicketFd},
                       {reports[1], kReportFd}},
                      options.malloc_check);
  }
  ::close(tickets[0]);
  ::close(reports[1]);
  ::close(output[1]);
  if (!pid.ok()) {
    ::close(tickets[1]);
    ::close(reports[0]);
    ::close(output[0]);
    return absl::InternalError(
        absl::StrCat("starting a worker: ", pid.status().message()));
  }
  ::fcntl(reports[0], F_SETFL, O_NONBLOCK);
  ::fcntl(output[0], F_SETFL, O_NONBLOCK);
  return std::unique_ptr<WorkerProcess>(new WorkerProcess(
      *pid, tickets[1], reports[0], output[0], std::move(slot),
      options.config.slot_path, options.config.case_out));
}

WorkerProcess::WorkerProcess(pid_t pid, int ticket_fd, int report_fd,
                             int output_fd, WorkerSlot slot,
                             std::string slot_path, std::string case_out)
    : pid_(pid),
      ticket_fd_(ticket_fd),
      report_fd_(report_fd),
      output_fd_(output_fd),
      slot_(std::move(slot)),
      slot_path_(std::move(slot_path)),
      case_out_(std::move(case_out)) {}

WorkerProcess::~WorkerProcess() {
  if (!status_.has_value()) {
    Kill();
    Wait();
  }
  CloseInput();
  ::close(report_fd_);
  ::close(output_fd_);
  ::unlink(slot_path_.c_str());
  if (!case_out_.empty()) ::unlink(case_out_.c_str());
}

absl::Status WorkerProcess::Send(absl::string_view batch) {
  size_t done = 0;
  while (done < batch.size()) {
    const ssize_t n =
        ::write(ticket_fd_, batch.data() + done, batch.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("sending a ticket to a worker");
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

void WorkerProcess::CloseInput() {
  if (ticket_fd_ >= 0) ::close(ticket_fd_);
  ticket_fd_ = -1;
}

void WorkerProcess::ReadOutput() {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(output_fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    partial_line_.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = partial_line_.find('\n', start)) != std::string::npos;
         start = nl + 1) {
      last_lines_.push_back(partial_line_.substr(start, nl - start));
      if (last_lines_.size() > kLastLines) last_lines_.pop_front();
    }
    partial_line_.erase(0, start);
    if (partial_line_.size() > 4096) partial_line_.erase(0, 2048);
  }
}

bool WorkerProcess::ReadAvailable(
    std::vector<absl::StatusOr<WorkerReport>>& reports) {
  ReadOutput();
  bool open = true;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(report_fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) open = false;
    if (n <= 0) break;
    reader_.Append(chunk, static_cast<size_t>(n));
  }
  while (std::optional<absl::StatusOr<WorkerReport>> r = reader_.Next()) {
    reports.push_back(std::move(*r));
  }
  return open;
}

std::vector<std::string> WorkerProcess::LastLines() const {
  std::vector<std::string> lines(last_lines_.begin(), last_lines_.end());
  if (!partial_line_.empty()) lines.push_back(partial_line_);
  return lines;
}

int64_t WorkerProcess::RssMb() const {
  std::ifstream statm(absl::StrCat("/proc/", pid_, "/statm"));
  int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * ::sysconf(_SC_PAGESIZE) / (1024 * 1024);
}

void WorkerProcess::Kill() {
  if (!status_.has_value()) ::kill(pid_, SIGKILL);
}

int WorkerProcess::Wait() {
  if (status_.has_value()) return *status_;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ReadOutput();
  status_ = status;
  return status;
}

}  // namespace dpfuzz
