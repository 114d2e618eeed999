//===- Sandbox.cpp - Run work in a forked child with limits ----------------===//

#include "mqss/Runtime/Sandbox.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mqss {

static constexpr size_t kStderrTailBytes = 64 * 1024;
static constexpr size_t kMaxMessageBytes = 64 * 1024 * 1024;

void SandboxChannel::send(llvm::StringRef message) {
  std::string line = message.str();
  line.push_back('\n');
  const char *data = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return; // the parent is gone; nothing useful to do
    }
    data += written;
    left -= written;
  }
}

std::string SandboxOutcome::describe() const {
  switch (end) {
  case End::TimedOut:
    return llvm::formatv("timed out after {0:f1} s", wallMs / 1000).str();
  case End::Signaled: {
    // SIGFPE's own description ("Floating point exception") misleads: on
    // x86 only integer division raises it (by zero, or INT_MIN / -1).
    std::string what = signal == SIGFPE ? "an integer division by zero or overflow"
                                        : strsignal(signal);
    return llvm::formatv("was killed by {0} ({1})",
                         sigabbrev_np(signal) ? std::string("SIG") + sigabbrev_np(signal)
                                              : std::to_string(signal),
                         what)
        .str();
  }
  case End::Exited:
    return llvm::formatv("exited with code {0}", exitCode).str();
  }
  return "unknown";
}

static int childOutOfMemoryFd = -1;

[[noreturn]] void exitChildOutOfMemory() {
  if (childOutOfMemoryFd >= 0) {
    static const char message[] = "{\"event\":\"out-of-memory\"}\n";
    (void)!::write(childOutOfMemoryFd, message, sizeof(message) - 1);
  }
  _exit(kExitOutOfMemory);
}

static void badAllocHandler(void *, const char *, bool) { exitChildOutOfMemory(); }
static void newHandler() { exitChildOutOfMemory(); }

/// Runs in the child: redirects stdio, applies limits, pins, runs the body.
[[noreturn]] static void childMain(const SandboxLimits &limits, int messageFd,
                                   int stderrFd, const char *scratchDirectory,
                                   llvm::function_ref<int(SandboxChannel &)> body) {
  // Die with the parent rather than run on as an orphan.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  setpgid(0, 0);
  // Temporary files of the child (LLVM's stack symbolizer, object dumps)
  // go to a directory the parent removes, so a child killed mid-way leaves
  // nothing behind.
  setenv("TMPDIR", scratchDirectory, /*overwrite=*/1);

  int devNull = ::open("/dev/null", O_RDWR);
  if (devNull >= 0) {
    dup2(devNull, STDIN_FILENO);
    dup2(devNull, STDOUT_FILENO);
    ::close(devNull);
  }
  dup2(stderrFd, STDERR_FILENO);
  ::close(stderrFd);

  struct rlimit noCore = {0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  if (limits.memoryBytes > 0) {
    struct rlimit as = {limits.memoryBytes, limits.memoryBytes};
    setrlimit(RLIMIT_AS, &as);
  }
  if (limits.cpu != -2) {
    int cpu = limits.cpu >= 0 ? limits.cpu : sched_getcpu();
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof(set), &set);
    }
  }

  // Libraries linked into the process (libtorch's dependencies) may have
  // installed their own handlers for crash signals, some of which return
  // instead of dying. The parent classifies a crash by the signal that ended
  // the child, so restore the defaults, then let LLVM print a stack trace and
  // re-raise.
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP})
    std::signal(sig, SIG_DFL);
  llvm::sys::PrintStackTraceOnErrorSignal("mqss");
  // A stack dump from here is about the user's kernel or a pass, not a bug
  // in LLVM: say so instead of LLVM's request for a bug report.
  llvm::setBugReportMsg("mqss: the measurement child crashed (in the kernel or a pass)\n");
  childOutOfMemoryFd = messageFd;
  llvm::install_bad_alloc_error_handler(badAllocHandler);
  std::set_new_handler(newHandler);

  SandboxChannel channel(messageFd);
  int cpu = sched_getcpu();
  channel.send(llvm::formatv("{{\"event\":\"started\",\"cpu\":{0}}", cpu).str());
  int code = body(channel);
  std::fflush(nullptr);
  _exit(code);
}

namespace {
/// Accumulates a pipe's bytes into complete lines, or into a bounded tail.
struct PipeReader {
  int fd;
  bool open = true;
  std::string buffer;
};
} // namespace

llvm::Expected<SandboxOutcome>
runSandboxed(const SandboxLimits &limits,
             llvm::function_ref<int(SandboxChannel &)> body) {
  llvm::SmallString<128> prefix, scratch;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, prefix);
  llvm::sys::path::append(prefix, "mqss-child");
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, scratch))
    return llvm::createStringError(
        ec, "cannot create a temporary directory for the child: " + ec.message());
  // Removes the child's temporary files however this function returns.
  auto removeScratch =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(scratch); });

  int messagePipe[2], stderrPipe[2];
  if (pipe2(messagePipe, O_CLOEXEC) != 0)
    return llvm::errorCodeToError(std::error_code(errno, std::generic_category()));
  if (pipe2(stderrPipe, O_CLOEXEC) != 0) {
    int saved = errno;
    ::close(messagePipe[0]);
    ::close(messagePipe[1]);
    return llvm::errorCodeToError(std::error_code(saved, std::generic_category()));
  }

  // Buffered output written before the fork would otherwise be flushed twice.
  std::fflush(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    int saved = errno;
    for (int fd : {messagePipe[0], messagePipe[1], stderrPipe[0], stderrPipe[1]})
      ::close(fd);
    return llvm::errorCodeToError(std::error_code(saved, std::generic_category()));
  }
  if (pid == 0) {
    ::close(messagePipe[0]);
    ::close(stderrPipe[0]);
    childMain(limits, messagePipe[1], stderrPipe[1], scratch.c_str(), body);
  }
  ::close(messagePipe[1]);
  ::close(stderrPipe[1]);

  SandboxOutcome outcome;
  PipeReader messages{messagePipe[0]};
  PipeReader errors{stderrPipe[0]};
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(limits.timeoutSeconds));
  bool timedOut = false;

  while (messages.open || errors.open) {
    int waitMs = -1;
    if (limits.timeoutSeconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) {
        timedOut = true;
        break;
      }
      waitMs = static_cast<int>(std::min<long long>(left, 1000));
    }
    struct pollfd fds[2];
    int count = 0;
    PipeReader *readers[2];
    for (PipeReader *reader : {&messages, &errors})
      if (reader->open) {
        fds[count] = {reader->fd, POLLIN, 0};
        readers[count++] = reader;
      }
    int ready = poll(fds, count, waitMs);
    if (ready < 0 && errno != EINTR)
      break;
    for (int i = 0; i < count && ready > 0; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[65536];
      ssize_t got = ::read(fds[i].fd, chunk, sizeof(chunk));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        readers[i]->open = false;
        continue;
      }
      PipeReader &reader = *readers[i];
      reader.buffer.append(chunk, got);
      if (&reader == &messages) {
        size_t newline;
        while ((newline = reader.buffer.find('\n')) != std::string::npos) {
          outcome.messages.push_back(reader.buffer.substr(0, newline));
          reader.buffer.erase(0, newline + 1);
        }
        if (reader.buffer.size() > kMaxMessageBytes)
          reader.buffer.clear(); // a runaway child; drop the partial line
      } else if (reader.buffer.size() > 2 * kStderrTailBytes) {
        reader.buffer.erase(0, reader.buffer.size() - kStderrTailBytes);
      }
    }
  }

  // The pipes close when the child exits, but a child could close them and
  // run on: keep enforcing the deadline while waiting for it.
  int status = 0;
  while (!timedOut) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR))
      break;
    if (limits.timeoutSeconds > 0 && std::chrono::steady_clock::now() >= deadline)
      timedOut = true;
    else
      usleep(1000);
  }
  if (timedOut) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(messagePipe[0]);
  ::close(stderrPipe[0]);

  outcome.wallMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (errors.buffer.size() > kStderrTailBytes)
    errors.buffer.erase(0, errors.buffer.size() - kStderrTailBytes);
  outcome.stderrTail = std::move(errors.buffer);
  if (!outcome.messages.empty())
    if (auto first = llvm::json::parse(outcome.messages.front()))
      if (auto *object = first->getAsObject())
        if (object->getString("event") == "started")
          outcome.pinnedCpu = object->getInteger("cpu").value_or(-1);
  if (timedOut) {
    outcome.end = SandboxOutcome::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome.end = SandboxOutcome::End::Signaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.end = SandboxOutcome::End::Exited;
    outcome.exitCode = WEXITSTATUS(status);
  }
  return outcome;
}

} // namespace mqss
