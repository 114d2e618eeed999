//===- SelectBench.cpp - `mqss select` and the mqss-select pass: overheads --===//
//
// Builds a module of about 1,000 lines from real benchmark kernels (the
// PolyBench kernels at their small size, renamed apart: one function each),
// then measures
//   1. select end-to-end as `mqss select --emit=pipeline` does it (parse
//      the text, decide every function with the shipped model) excluding
//      pass execution. Target: p50 < 5 ms. Measured two ways, interleaved:
//      - on one thread (Selector::select after parsing): wall time minus
//        the time the chosen actions took to run;
//      - on --threads threads (Selector::selectSource, as `mqss select`
//        runs by default; each thread parses only the text of its share of
//        the functions and of what they call): per thread, the time until
//        it had decided its last function minus its own pass time; the
//        longest of these, plus the wall time after the last thread was
//        done (joining, assembling).
//   2. the mqss-select pass inside an mqss-opt pipeline (the pass, then the
//      mandatory lowering to the LLVM dialect): its decision time as a share
//      of the total compile time that --mlir-timing reports.
// Prints JSON.
//
// Usage: mqss-bench-select [--lines=N] [--iterations=N] [--target=T] [--shape=functions|single]
//                          [--emit-module=PATH]
//
//===----------------------------------------------------------------------===//

#include "BenchModules.h"
#include "BenchOptions.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Selector/Selector.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mqss;

static llvm::cl::opt<unsigned>
    lines("lines", llvm::cl::desc("Lines of the generated module"),
          llvm::cl::init(1000), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<unsigned> iterations("iterations", llvm::cl::init(20),
                                          llvm::cl::desc("Timed selections"),
                                          llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string>
    target("target", llvm::cl::init("x86-avx2"),
           llvm::cl::desc("Target the policy decides for"),
           llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string>
    shape("shape",
          llvm::cl::desc("functions: PolyBench kernels, one function each "
                         "(default); single: one large function"),
          llvm::cl::init("functions"), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<unsigned>
    threads("select-threads", llvm::cl::init(2),
            llvm::cl::desc("Threads of the selectSource measurement (mqss select's default: 2)"),
            llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string>
    emitModule("emit-module",
               llvm::cl::desc("Also write the generated module to this file"),
               llvm::cl::value_desc("path"), llvm::cl::cat(benchOptions()));

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, size_t(p * (values.size() - 1) + 0.5))];
}

/// Runs \p program with \p args; returns its stderr.
std::string runCapturingStderr(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args) {
  llvm::SmallString<128> errPath;
  llvm::sys::fs::createTemporaryFile("mqss-bench", "txt", errPath);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(""),
                                                llvm::StringRef(errPath)};
  llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects);
  auto buffer = llvm::MemoryBuffer::getFile(errPath);
  llvm::sys::fs::remove(errPath);
  return buffer ? (*buffer)->getBuffer().str() : "";
}
} // namespace

int main(int argc, char **argv) {
  parseBenchCommandLine(argc, argv, "mqss select and mqss-select overheads\n");
  auto context = createContext();
  registerPasses();
  unsigned functions = 1;
  std::string source = shape == "single" ? buildSingleFunctionModule(lines)
                                         : buildPolyBenchModule(*context, lines, functions);
  unsigned lineCount = llvm::count(source, '\n');
  if (!emitModule.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream os(emitModule, error);
    if (error) {
      llvm::errs() << "error: cannot write '" << emitModule << "': " << error.message() << "\n";
      return 1;
    }
    os << source;
  }

  auto loadStart = Clock::now();
  SelectorOptions options;
  options.target = target;
  options.threads = threads;
  auto selector = Selector::create(options);
  if (!selector) {
    llvm::errs() << llvm::toString(selector.takeError()) << "\n";
    return 1;
  }
  double modelLoadMs = msSince(loadStart);

  std::vector<double> totalMs, parseMs, decisionMs, passMs, overheadMs;
  std::vector<double> threadedTotalMs, threadedOverheadMs, threadedPassMs;
  std::vector<double> helperFunctions; // decided by helpers, per iteration
  unsigned decisions = 0;
  std::string firstPipelines;
  llvm::json::Array parsedPerThread; // functions in the text each thread parsed
  // One untimed run: the helpers' contexts load their dialects.
  if (auto warm = (*selector)->selectSource(*context, source, "bench.mlir"); !warm) {
    llvm::errs() << llvm::toString(warm.takeError()) << "\n";
    return 1;
  }
  for (unsigned i = 0; i < iterations; ++i) {
    {
      auto start = Clock::now();
      auto selection = (*selector)->selectSource(*context, source, "bench.mlir");
      if (!selection) {
        llvm::errs() << llvm::toString(selection.takeError()) << "\n";
        return 1;
      }
      double total = msSince(start);
      double lastBusy = 0, longest = 0, passes = 0;
      for (const Selection::ThreadTime &time : selection->threads) {
        lastBusy = std::max(lastBusy, time.busyMicros / 1000);
        longest = std::max(longest, (time.busyMicros - time.passMicros) / 1000);
        passes += time.passMicros / 1000;
      }
      threadedTotalMs.push_back(total);
      threadedOverheadMs.push_back(longest + (total - lastBusy));
      threadedPassMs.push_back(passes);
      helperFunctions.push_back(selection->functions.size() -
                                selection->threads.front().functions);
      if (i == 0) {
        firstPipelines = selection->describe();
        for (const Selection::ThreadTime &time : selection->threads)
          parsedPerThread.push_back(time.parsedFunctions);
      }
    }
    auto start = Clock::now();
    auto module = loadModuleSource(*context, source, "bench.mlir");
    if (!module) {
      llvm::errs() << llvm::toString(module.takeError());
      return 1;
    }
    parseMs.push_back(msSince(start));
    auto selection = (*selector)->select(**module);
    if (!selection) {
      llvm::errs() << llvm::toString(selection.takeError()) << "\n";
      return 1;
    }
    double total = msSince(start);
    totalMs.push_back(total);
    decisionMs.push_back(selection->decisionMicros / 1000);
    passMs.push_back(selection->passMicros / 1000);
    overheadMs.push_back(total - selection->passMicros / 1000);
    decisions = 0;
    for (const FunctionSelection &function : selection->functions)
      decisions += function.decisionMicros.size();
    if (i == 0 && selection->describe() != firstPipelines) {
      llvm::errs() << "error: selectSource chose differently from select\n";
      return 1;
    }
  }

  // Where the parse time goes: MLIR's parser alone, then its verifier.
  std::vector<double> parseOnlyMs, verifyMs;
  for (unsigned i = 0; i < iterations; ++i) {
    auto start = Clock::now();
    mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(
        source, mlir::ParserConfig(context.get(), /*verifyAfterParse=*/false));
    parseOnlyMs.push_back(msSince(start));
    start = Clock::now();
    if (!module || mlir::failed(mlir::verify(*module))) {
      llvm::errs() << "error: the generated module does not verify\n";
      return 1;
    }
    verifyMs.push_back(msSince(start));
  }

  // The pass inside an mqss-opt pipeline, timed by --mlir-timing.
  llvm::SmallString<128> modulePath;
  int fd = -1;
  llvm::sys::fs::createTemporaryFile("mqss-bench-select", "mlir", fd, modulePath);
  {
    llvm::raw_fd_ostream os(fd, true);
    os << source;
  }
  std::string pipeline = "--pass-pipeline=builtin.module(mqss-select{remarks target=" +
                         std::string(target) + "}," + mandatoryLoweringPipeline(true) + ")";
  std::string optPath = MQSS_TOOLS_DIR "/mqss-opt";
  std::vector<double> passShare;
  double lastTotal = 0, lastDecision = 0;
  for (unsigned i = 0; i < std::max(1u, iterations / 4); ++i) {
    std::string log = runCapturingStderr(
        optPath, {optPath, modulePath, pipeline, "--mlir-timing", "--mlir-timing-display=list",
                  "-o", "/dev/null"});
    llvm::SmallVector<llvm::StringRef> total, decision;
    if (!llvm::Regex("Total Execution Time: ([0-9.]+) seconds").match(log, &total) ||
        !llvm::Regex("decision_us=([0-9.]+)").match(log, &decision)) {
      llvm::errs() << "unexpected mqss-opt output:\n" << log << "\n";
      return 1;
    }
    double totalSeconds = 0, decisionMicros = 0;
    total[1].getAsDouble(totalSeconds);
    decision[1].getAsDouble(decisionMicros);
    lastTotal = totalSeconds * 1000;
    lastDecision = decisionMicros / 1000;
    passShare.push_back(decisionMicros / 1e6 / totalSeconds);
  }
  llvm::sys::fs::remove(modulePath);

  llvm::json::Object result{
      {"benchmark", "select"},
      {"target", std::string(target)},
      {"module_lines", lineCount},
      {"shape", std::string(shape)},
      {"functions", functions},
      {"decisions", decisions},
      {"iterations", static_cast<unsigned>(iterations)},
      {"model_load_ms", modelLoadMs},
      {"select_excluding_passes_ms", llvm::json::Object{{"p50", percentile(overheadMs, 0.5)},
                                                        {"p90", percentile(overheadMs, 0.9)}}},
      {"parse_ms_p50", percentile(parseMs, 0.5)},
      {"parse_breakdown_ms_p50", llvm::json::Object{{"parser", percentile(parseOnlyMs, 0.5)},
                                                    {"verifier", percentile(verifyMs, 0.5)}}},
      {"decision_ms_p50", percentile(decisionMs, 0.5)},
      {"decision_us_per_step_p50", percentile(decisionMs, 0.5) * 1000 / std::max(1u, decisions)},
      {"pass_execution_ms_p50", percentile(passMs, 0.5)},
      {"select_total_ms_p50", percentile(totalMs, 0.5)},
      {"threaded",
       llvm::json::Object{
           {"threads", static_cast<unsigned>(threads)},
           {"select_excluding_passes_ms",
            llvm::json::Object{{"p50", percentile(threadedOverheadMs, 0.5)},
                               {"p90", percentile(threadedOverheadMs, 0.9)}}},
           {"select_total_ms_p50", percentile(threadedTotalMs, 0.5)},
           {"pass_execution_ms_p50", percentile(threadedPassMs, 0.5)},
           {"functions_decided_by_helpers_p50", percentile(helperFunctions, 0.5)},
           {"functions_parsed_per_thread", std::move(parsedPerThread)}}},
      {"target_select_excluding_passes_ms", 5.0},
      {"meets_target_one_thread", percentile(overheadMs, 0.5) < 5.0},
      {"meets_target", percentile(threadedOverheadMs, 0.5) < 5.0},
      {"mqss_opt", llvm::json::Object{{"pipeline", "mqss-select + mandatory lowering"},
                                      {"total_compile_ms", lastTotal},
                                      {"decision_ms", lastDecision},
                                      {"decision_share_p50", percentile(passShare, 0.5)}}}};
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(result))) << "\n";
  return 0;
}
