//===- RunCommand.cpp - `mqss run`: measure a pipeline on a kernel ---------===//

#include "Commands.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Env/Episode.h"
#include "mqss/Runtime/Harness.h"
#include "mqss/Runtime/Target.h"
#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <sched.h>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand runCommand(
    "run", "Lower a kernel with a pass pipeline, JIT it, time it and check "
           "its output against the naive lowering");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<kernel.mlir>"), cl::sub(runCommand),
                                      cl::cat(category()));
static cl::opt<std::string> pipeline(
    "pipeline",
    cl::desc("Pass pipeline in mlir-opt's --pass-pipeline syntax, with or "
             "without the outer builtin.module(...); or a name: `naive` (no "
             "transformation), `default`, `expert:<family>`, `actions:a,b,c`, "
             "`plan:a,b,c`, `policy` (the shipped model) or `policy:MODEL`"),
    cl::init("naive"), cl::sub(runCommand), cl::cat(category()));
static cl::opt<std::string> baseline(
    "baseline",
    cl::desc("A second pipeline timed interleaved with the first (A B A B); "
             "adds baseline_runtime_ms and speedup"),
    cl::sub(runCommand), cl::cat(category()));
static cl::opt<std::string> target(
    "target", cl::desc("Code generation target: host, x86-avx512, x86-avx2, x86-sse4"),
    cl::init("host"), cl::sub(runCommand), cl::cat(category()));
static cl::opt<std::string> entry(
    "entry",
    cl::desc("Function to run (default: main, else the only public function)"),
    cl::sub(runCommand), cl::cat(category()));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the pseudo-random inputs"),
                              cl::init(1), cl::sub(runCommand), cl::cat(category()));
static cl::opt<unsigned> reps("reps", cl::desc("Minimum number of timed runs"),
                              cl::init(10), cl::sub(runCommand), cl::cat(category()));
static cl::opt<double> minTimeMs(
    "min-time-ms", cl::desc("Keep timing until this much time has been spent"),
    cl::init(200), cl::sub(runCommand), cl::cat(category()));
static cl::opt<unsigned> warmup("warmup", cl::desc("Untimed warm-up runs per pipeline"),
                                cl::init(2), cl::sub(runCommand), cl::cat(category()));
static cl::opt<double> timeoutS(
    "timeout-s", cl::desc("Wall-clock limit for the whole measurement (0: none)"),
    cl::init(60), cl::sub(runCommand), cl::cat(category()));
static cl::opt<uint64_t> memoryLimitMb(
    "memory-limit-mb", cl::desc("Address-space limit of the measurement process (0: none)"),
    cl::init(8192), cl::sub(runCommand), cl::cat(category()));
static cl::opt<int> cpu("cpu",
                        cl::desc("CPU to pin to (-1: the one it starts on, -2: no pinning)"),
                        cl::init(-1), cl::sub(runCommand), cl::cat(category()));
static cl::opt<double> rtol("rtol", cl::desc("Relative tolerance of the float output check"),
                            cl::init(1e-3), cl::sub(runCommand), cl::cat(category()));
static cl::opt<bool> noCheck("no-check", cl::desc("Skip the output check"),
                             cl::sub(runCommand), cl::cat(category()));
static cl::opt<unsigned> llvmOpt("llvm-opt", cl::desc("LLVM optimisation level 0-3"),
                                 cl::init(3), cl::sub(runCommand), cl::cat(category()));
static cl::list<std::string> shapes(
    "shape", cl::desc("Sizes of a dynamically shaped argument, e.g. arg3=20x30 (repeatable)"),
    cl::sub(runCommand), cl::cat(category()));
static cl::list<std::string> scalarArgs(
    "arg", cl::desc("Value of a scalar argument, e.g. arg0=20 (repeatable)"),
    cl::sub(runCommand), cl::cat(category()));
static cl::opt<bool> json("json", cl::desc("Print the report as JSON"),
                          cl::sub(runCommand), cl::cat(category()));

static int usageError(const Twine &message) {
  return reportError("mqss run", message, json, 2);
}

int runMain() {
  RunRequest request;
  std::optional<TemporaryFile> stdinCopy;
  auto path = measurableInput(inputFile, stdinCopy);
  if (!path)
    return usageError(toString(path.takeError()));
  request.inputPath = *path;
  request.pipeline = pipeline;
  if (baseline.getNumOccurrences())
    request.baseline = baseline;
  for (const std::string &spec : {request.pipeline, request.baseline.value_or("")})
    if (Error error = validateNamedPipeline(spec))
      return usageError(toString(std::move(error)));
  usePolicyPipelines(request);
  if (auto resolved = resolveTarget(target); !resolved)
    return usageError(toString(resolved.takeError()));
  request.target = target;
  request.entry = entry;
  request.inputs.seed = seed;
  for (const std::string &text : shapes)
    if (Error error = parseShapeOption(text, request.inputs.shapes))
      return usageError(toString(std::move(error)));
  for (const std::string &text : scalarArgs)
    if (Error error = parseScalarOption(text, request.inputs.scalars))
      return usageError(toString(std::move(error)));
  if (llvmOpt > 3)
    return usageError("--llvm-opt must be 0, 1, 2 or 3");
  if (Error error = checkMeasurementOptions(reps, minTimeMs, timeoutS))
    return usageError(toString(std::move(error)));
  if (!(rtol >= 0) || !std::isfinite(rtol))
    return usageError("--rtol must be a finite number, 0 or more");
  request.reps = reps;
  request.minTimeMs = minTimeMs;
  request.warmup = warmup;
  request.rtol = rtol;
  request.checkOutput = !noCheck;
  request.llvmOptLevel = llvmOpt;
  request.limits.timeoutSeconds = timeoutS;
  request.limits.memoryBytes = memoryLimitMb << 20;
  // A CPU the process may not run on was pinned to another one unsaid.
  if (cpu < -2)
    return usageError("--cpu must be a CPU number, -1 (the one it starts on) or -2 (none)");
  if (cpu >= 0) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
        (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)))
      return usageError("--cpu=" + Twine(cpu) + ": this process may not run on that CPU (it "
                        "may run on " + Twine(CPU_COUNT(&allowed)) + " CPUs; see nproc)");
  }
  request.limits.cpu = cpu;

  RunReport report = runMeasurement(request);
  if (stdinCopy)
    report.file = "<stdin>";
  if (json) {
    outs() << formatv("{0:2}", toJSON(report)) << "\n";
  } else {
    printReport(report, outs());
  }
  // Parse errors read like mlir-opt's on stderr, whatever the output format.
  if (json && !report.ok() && !report.diagnostics.empty())
    errs() << report.diagnostics;
  return report.ok() ? 0 : 1;
}

} // namespace mqss::tool
