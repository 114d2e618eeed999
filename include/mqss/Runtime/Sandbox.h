//===- Sandbox.h - Run work in a forked child with limits ------------------===//
//
// Parsing, passes, JIT compilation and runs of untrusted code happen in a
// child process with a wall-clock timeout and an address-space limit. A pass
// that aborts, code that segfaults, an endless loop or an exploding
// allocation ends the child, never the caller; the caller learns how it ended
// and what the child reported before that.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_SANDBOX_H
#define MQSS_RUNTIME_SANDBOX_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mqss {

struct SandboxLimits {
  /// Wall-clock limit for the whole child; 0 means none.
  double timeoutSeconds = 60;
  /// RLIMIT_AS for the child in bytes; 0 means none.
  uint64_t memoryBytes = 8ull << 30;
  /// CPU to pin the child to: -1 picks the CPU it starts on, -2 disables
  /// pinning.
  int cpu = -1;
};

/// Exit status a child uses when an allocation failed (RLIMIT_AS reached).
constexpr int kExitOutOfMemory = 86;

/// In a sandboxed child: reports out-of-memory to the parent and exits with
/// kExitOutOfMemory.
[[noreturn]] void exitChildOutOfMemory();

/// What the child uses to talk to its parent: newline-delimited messages.
class SandboxChannel {
public:
  explicit SandboxChannel(int fd) : fd(fd) {}
  /// Sends one message; newlines inside it are not allowed.
  void send(llvm::StringRef message);
  int descriptor() const { return fd; }

private:
  int fd;
};

struct SandboxOutcome {
  enum class End { Exited, Signaled, TimedOut };
  End end = End::Exited;
  int exitCode = 0;
  int signal = 0;
  /// Complete messages the child sent, in order.
  std::vector<std::string> messages;
  /// The end of what the child wrote to stderr (at most 64 KiB).
  std::string stderrTail;
  double wallMs = 0;
  /// The CPU the child was pinned to, or -1.
  int pinnedCpu = -1;

  /// How the child ended, to follow "the ... child": "was killed by SIGSEGV
  /// (Segmentation fault)", "exited with code 3", "timed out after 2.0 s".
  std::string describe() const;
};

/// Forks, applies \p limits in the child, runs \p body there and exits with
/// its return value. Errors only for failures of the sandbox itself (fork,
/// pipe); everything the child does is reported in the outcome.
llvm::Expected<SandboxOutcome>
runSandboxed(const SandboxLimits &limits,
             llvm::function_ref<int(SandboxChannel &)> body);

} // namespace mqss

#endif // MQSS_RUNTIME_SANDBOX_H
