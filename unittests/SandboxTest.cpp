//===- SandboxTest.cpp - Isolation of failing children ---------------------===//

#include "mqss/Runtime/Harness.h"
#include "mqss/Runtime/Sandbox.h"
#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <csignal>
#include <dirent.h>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mqss;

/// A real invalid store (not raise(): LLVM's stack-trace handler returns from
/// a synthetic SIGSEGV, relying on real faults to fault again).
static void segfault() {
  volatile int *null = nullptr;
  *null = 1;
}

static size_t openDescriptors() {
  size_t count = 0;
  if (DIR *dir = opendir("/proc/self/fd")) {
    while (readdir(dir))
      ++count;
    closedir(dir);
  }
  return count;
}

static size_t directoryEntries(const std::string &path) {
  size_t count = 0;
  if (DIR *dir = opendir(path.c_str())) {
    while (dirent *entry = readdir(dir))
      if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
        ++count;
    closedir(dir);
  }
  return count;
}

static long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return -1;
}

TEST(Sandbox, ReportsHowTheChildEnded) {
  SandboxLimits limits;
  limits.timeoutSeconds = 5;
  auto crashed = runSandboxed(limits, [](SandboxChannel &) -> int {
    segfault();
    return 0;
  });
  ASSERT_TRUE(static_cast<bool>(crashed));
  EXPECT_EQ(crashed->end, SandboxOutcome::End::Signaled);
  EXPECT_EQ(crashed->signal, SIGSEGV);

  auto talked = runSandboxed(limits, [](SandboxChannel &channel) -> int {
    channel.send("{\"hello\":1}");
    fprintf(stderr, "diagnostic text\n");
    return 3;
  });
  ASSERT_TRUE(static_cast<bool>(talked));
  EXPECT_EQ(talked->end, SandboxOutcome::End::Exited);
  EXPECT_EQ(talked->exitCode, 3);
  ASSERT_EQ(talked->messages.size(), 2u); // "started" and ours
  EXPECT_EQ(talked->messages[1], "{\"hello\":1}");
  EXPECT_NE(talked->stderrTail.find("diagnostic text"), std::string::npos);
  EXPECT_GE(talked->pinnedCpu, 0);

  limits.timeoutSeconds = 0.2;
  auto hung = runSandboxed(limits, [](SandboxChannel &) -> int {
    while (true)
      pause();
  });
  ASSERT_TRUE(static_cast<bool>(hung));
  EXPECT_EQ(hung->end, SandboxOutcome::End::TimedOut);
  EXPECT_LT(hung->wallMs, 2000);
}

TEST(Sandbox, AddressSpaceLimitTurnsIntoOutOfMemory) {
  SandboxLimits limits;
  // The process maps libtorch and libMLIR (over a GiB of address space):
  // leave room for them, then ask for far more than the limit.
  limits.memoryBytes = 3ull << 30;
  auto outcome = runSandboxed(limits, [](SandboxChannel &) -> int {
    std::vector<char> huge(size_t(16) << 30, 1); // new_handler reports OOM
    return huge[12345];
  });
  ASSERT_TRUE(static_cast<bool>(outcome));
  EXPECT_EQ(outcome->end, SandboxOutcome::End::Exited);
  EXPECT_EQ(outcome->exitCode, kExitOutOfMemory);
}

TEST(Sandbox, TwoHundredFailingChildrenLeakNothing) {
  // Warm up lazily allocated state before taking the baseline.
  RunRequest crash;
  crash.inputPath = MQSS_TEST_INPUTS "/null_store.mlir";
  crash.limits.timeoutSeconds = 10;
  EXPECT_EQ(runMeasurement(crash).status, RunStatus::Crash);

  // Children killed while LLVM symbolizes their stack trace (the 50 ms
  // deadline below) used to leave its temporary files behind.
  char tmpTemplate[] = "/tmp/mqss-sandbox-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpTemplate), nullptr);
  std::string tmp = tmpTemplate;
  const char *oldTmp = getenv("TMPDIR");
  std::string savedTmp = oldTmp ? oldTmp : "";
  setenv("TMPDIR", tmp.c_str(), 1);

  size_t fdsBefore = openDescriptors();
  long rssBefore = residentKiB();
  SandboxLimits limits;
  limits.timeoutSeconds = 0.05;
  for (int i = 0; i < 200; ++i) {
    if (i % 10 == 0) { // the full path: parse, lower, JIT, segfault
      RunReport report = runMeasurement(crash);
      ASSERT_EQ(report.status, RunStatus::Crash) << report.message;
      continue;
    }
    auto outcome = runSandboxed(limits, [i](SandboxChannel &channel) -> int {
      channel.send(std::string(1000, 'x'));
      fprintf(stderr, "%s\n", std::string(100000, 'e').c_str());
      switch (i % 3) {
      case 0: segfault(); break;
      case 1: abort();
      default: while (true) pause();
      }
      return 0;
    });
    ASSERT_TRUE(static_cast<bool>(outcome));
    ASSERT_NE(outcome->end, SandboxOutcome::End::Exited);
  }
  EXPECT_EQ(openDescriptors(), fdsBefore);
  long growth = residentKiB() - rssBefore;
  EXPECT_LT(growth, 4096) << "resident memory grew by " << growth << " KiB";
  EXPECT_EQ(directoryEntries(tmp), 0u) << "children left files in " << tmp;
  if (oldTmp)
    setenv("TMPDIR", savedTmp.c_str(), 1);
  else
    unsetenv("TMPDIR");
  rmdir(tmp.c_str());
}

// A write that fails part way (here: over a file-size limit, as a full disk
// would) is an error and leaves the file it was to replace as it was, with
// no temporary beside it. In a child, whose limit ends with it.
TEST(TemporaryFile, AFailedAtomicWriteLeavesTheFileAsItWas) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("mqss-atomic", dir));
  std::string path = (dir + "/report.json").str();
  ASSERT_FALSE(errorToBool(writeFileAtomically(path, "before")));
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN); // the write fails with EFBIG instead
    struct rlimit small = {4096, 4096};
    setrlimit(RLIMIT_FSIZE, &small);
    llvm::Error error = writeFileAtomically(path, std::string(1 << 20, 'x'));
    bool said = error && llvm::StringRef(llvm::toString(std::move(error)))
                             .starts_with("cannot write '" + path + "'");
    _exit(said ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the failed write was not an error naming the file";
  auto kept = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(static_cast<bool>(kept));
  EXPECT_EQ((*kept)->getBuffer(), "before");
  std::error_code ec;
  unsigned entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left beside it";
  llvm::sys::fs::remove_directories(dir);
}
