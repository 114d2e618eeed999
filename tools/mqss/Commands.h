//===- Commands.h - The `mqss` subcommands ---------------------------------===//
#ifndef MQSS_TOOLS_MQSS_COMMANDS_H
#define MQSS_TOOLS_MQSS_COMMANDS_H

#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class ToolOutputFile;
} // namespace llvm

namespace mqss::tool {

/// Options shown in `--help`; LLVM's own options stay hidden.
llvm::cl::OptionCategory &category();

/// Splits a comma-separated target list, checking each name: an unknown one,
/// one named twice, or one this host cannot run is an error. With
/// \p narrowToHost (a default list, not the user's), targets this host cannot
/// run are left out with a note as \p tool's.
llvm::Expected<std::vector<std::string>> parseTargetList(llvm::StringRef list, llvm::StringRef tool,
                                                         bool narrowToHost = false);

/// The most threads or worker processes a command's --threads or --workers
/// may ask for: more gains nothing on any machine mqss runs on, and a huge
/// count exhausted threads, processes or memory.
inline constexpr unsigned kMaxThreads = 256;

/// Flushes \p out (written to \p path) and keeps it. A write that failed
/// (a full disk, /dev/full) is \p tool's error, printed, and false: LLVM
/// would otherwise end the process with "IO failure on output stream".
bool finishOutput(llvm::ToolOutputFile &out, llvm::StringRef path, llvm::StringRef tool);

/// The path a measurement child can read the module \p input names from:
/// the file itself, or for "-" standard input kept in \p copy (a temporary
/// file, removed with \p copy; the child's own stdin is /dev/null). The
/// error says what could not be read or stored.
llvm::Expected<std::string> measurableInput(llvm::StringRef input,
                                            std::optional<TemporaryFile> &copy);

/// Prints why \p tool could not load a module (a LoadError: mlir-opt-style
/// diagnostics, or for a FILE that cannot be read \p tool's error), and
/// with \p json also {"error": ...} on stdout. Returns the exit code: 2 for
/// an unreadable FILE (a bad option), 1 for a module that does not parse or
/// verify.
int reportLoadError(llvm::StringRef tool, llvm::Error error, bool json);

/// Refuses a measurement's --reps of 0, and a --min-time-ms or --timeout-s
/// that is not a finite number, 0 or more (NaN was taken: a module then
/// took seconds where it needs milliseconds, and `nan` is no JSON).
llvm::Error checkMeasurementOptions(unsigned reps, double minTimeMs, double timeoutS);

/// For a command printing JSON: its failure as {"error": message} on stdout,
/// so that a consumer parsing the output gets the message, not nothing.
void printJsonError(const llvm::Twine &message);

/// Prints \p message as \p tool's error, and with \p json also on stdout
/// (printJsonError); returns \p code, the exit code (1: a failure, 2: a bad
/// option).
int reportError(llvm::StringRef tool, const llvm::Twine &message, bool json, int code);

/// The value of `--small-kernels` (select, explain, serve): whether a
/// function executing under half the ops of the smallest kernel the model
/// was trained on gets `default`'s plan ("default") rather than the
/// policy's ("policy"). Anything else is an error saying so.
llvm::Expected<bool> smallKernelsToDefault(llvm::StringRef value);

extern llvm::cl::SubCommand runCommand;
int runMain();

extern llvm::cl::SubCommand benchCommand;
int benchMain();

extern llvm::cl::SubCommand actionsCommand;
int actionsMain();

extern llvm::cl::SubCommand applyCommand;
int applyMain();

extern llvm::cl::SubCommand featuresCommand;
int featuresMain();

extern llvm::cl::SubCommand searchCommand;
int searchMain();

extern llvm::cl::SubCommand selectCommand;
int selectMain();

extern llvm::cl::SubCommand explainCommand;
int explainMain();

extern llvm::cl::SubCommand serveCommand;
int serveMain();

// In mqss-train (libtorch), which `mqss train|retrain` runs; `mqss --help`
// lists them with these descriptions.
inline constexpr const char *kRetrainDescription =
    "Fine-tune the model with PPO on the trajectories `mqss serve` logged, compare "
    "candidate and current on the validation split, and promote the candidate "
    "(atomic file swap, then a reload of the server) only if it does not regress";
inline constexpr const char *kTrainDescription =
    "Train the policy: behaviour cloning from the baselines, then PPO on measured "
    "rewards; resumable (rerun the same command after an interruption)";
extern llvm::cl::SubCommand retrainCommand;
int retrainMain(int argc, char **argv);

extern llvm::cl::SubCommand collectCommand;
int collectMain();

extern llvm::cl::SubCommand evaluateCommand;
int evaluateMain();

// In mqss-train, as retrain is.
extern llvm::cl::SubCommand trainCommand;
int trainMain(int argc, char **argv);

} // namespace mqss::tool

#endif // MQSS_TOOLS_MQSS_COMMANDS_H
