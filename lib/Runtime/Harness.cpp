//===- Harness.cpp - Measure a pipeline on a kernel ------------------------===//

#include "mqss/Runtime/Harness.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Signature.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Jit.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>
#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;

namespace mqss {

namespace {
using Clock = std::chrono::steady_clock;

/// Enough for a tight median; more only bloats the report of tiny kernels.
constexpr unsigned kMaxRounds = 5000;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// One compiled pipeline. Variants with the same pipeline text, or whose
/// pipelines lower to the same code, share it.
struct Compiled {
  std::shared_ptr<CompiledKernel> kernel;
  std::string loweredIrHash;
  double compileMs = 0;
  double jitMs = 0;
};

/// A pipeline in a role: the reference for the output check, the candidate,
/// or the baseline it is compared with.
struct Variant {
  std::string role;
  std::string pipeline;
  unsigned llvmOptLevel = 3;
  std::function<llvm::Error(ModuleOp)> transform; ///< instead of the pipeline text
  Compiled compiled;
  std::unique_ptr<KernelCall> call;
  std::vector<OutputArray> outputs;
  std::vector<double> samples;
};

/// Everything that happens inside the sandboxed child.
class MeasurementChild {
public:
  MeasurementChild(const RunRequest &request, SandboxChannel &channel)
      : request(request), channel(channel) {}
  int run();

private:
  void enterPhase(llvm::StringRef phase);
  int finish(RunStatus status, llvm::StringRef message = "",
             llvm::StringRef diagnostics = "");
  int finishWithError(llvm::Error error, RunStatus fallback);
  llvm::Expected<Compiled> compile(const Variant &variant, bool measureCodeSize);
  llvm::Expected<ResolvedPipeline> resolve(llvm::StringRef spec);
  llvm::Error checkEntryUnchanged(ModuleOp module, llvm::StringRef pipeline);
  double runOnce(Variant &variant, bool collectOutputs);
  std::optional<std::string> referenceIsUndefined(Variant &reference);

  const RunRequest &request;
  SandboxChannel &channel;
  RunReport report;
  Clock::time_point start = Clock::now();
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  Signature signature;
  TargetSpec target;
  std::optional<KernelArguments> arguments;
  std::map<std::string, Compiled> compiledByPipeline;
  /// By lowered IR hash (which names the LLVM opt level) and heap key: the
  /// JIT makes the same machine code of the same IR.
  std::map<std::string, Compiled> compiledByCode;
  std::string currentPhase;
  /// Appended to the lowered IR's hash when the entry was named and is not
  /// the one the module alone implies: the same code run from another
  /// function is another measurement.
  std::string entryKey;
};
} // namespace

void MeasurementChild::enterPhase(llvm::StringRef phase) {
  currentPhase = phase.str();
  llvm::json::Object event{{"event", "phase"}, {"phase", phase}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(event));
  channel.send(text);
}

int MeasurementChild::finish(RunStatus status, llvm::StringRef message,
                             llvm::StringRef diagnostics) {
  report.status = status;
  report.message = message.str();
  report.diagnostics = diagnostics.str();
  if (status != RunStatus::Ok)
    report.phase = currentPhase;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(
      llvm::json::Object{{"event", "report"}, {"report", toJSON(report)}});
  channel.send(text);
  return 0;
}

/// Maps an error from the IR and pipeline layers to its status.
int MeasurementChild::finishWithError(llvm::Error error, RunStatus fallback) {
  RunStatus status = fallback;
  std::string message, diagnostics;
  llvm::handleAllErrors(
      std::move(error),
      [&](const LoadError &e) {
        status = e.kind == LoadFailure::Parse    ? RunStatus::ParseError
                 : e.kind == LoadFailure::Verify ? RunStatus::InvalidIR
                                                 : RunStatus::InvalidInput;
        message = e.kind == LoadFailure::Parse    ? "the module does not parse"
                  : e.kind == LoadFailure::Verify ? "the module does not verify"
                                                  : llvm::StringRef(e.diagnostics).trim().str();
        diagnostics = e.diagnostics;
      },
      [&](const PipelineError &e) {
        status = e.kind == PipelineFailure::Invalid      ? RunStatus::InvalidPipeline
                 : e.kind == PipelineFailure::PassFailed ? RunStatus::PassFailed
                                                         : RunStatus::LoweringFailed;
        auto [first, rest] = llvm::StringRef(e.message).split('\n');
        message = first.str();
        // "lowering to LLVM failed:" says what comes next: the first
        // diagnostic, so that the one line names the cause.
        if (first.ends_with(":") && !rest.trim().empty())
          message += " " + rest.trim().split('\n').first.str();
        diagnostics = rest.str();
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  return finish(status, message, diagnostics);
}

llvm::Error MeasurementChild::checkEntryUnchanged(ModuleOp transformed,
                                                  llvm::StringRef pipeline) {
  Operation *symbol = SymbolTable::lookupSymbolIn(transformed, signature.name);
  if (!symbol)
    return llvm::make_error<PipelineError>(
        PipelineFailure::PassFailed,
        llvm::formatv("pipeline '{0}' removed the entry function @{1}", pipeline,
                      signature.name).str());
  auto func = dyn_cast<func::FuncOp>(symbol);
  if (!func)
    return llvm::Error::success(); // already lowered to llvm.func by the pipeline
  auto after = describeSignature(func);
  bool same = static_cast<bool>(after) &&
              after->args.size() == signature.args.size() &&
              after->results.size() == signature.results.size();
  auto compatible = [](const ValueSpec &a, const ValueSpec &b) {
    return a.isShaped() == b.isShaped() && a.element == b.element &&
           a.components == b.components &&
           a.rank() == b.rank();
  };
  for (size_t i = 0; same && i < signature.args.size(); ++i)
    same = compatible(after->args[i], signature.args[i]);
  for (size_t i = 0; same && i < signature.results.size(); ++i)
    same = compatible(after->results[i], signature.results[i]);
  if (!after)
    llvm::consumeError(after.takeError());
  if (!same)
    return llvm::make_error<PipelineError>(
        PipelineFailure::PassFailed,
        llvm::formatv("pipeline '{0}' changed the signature of the entry "
                      "@{1}; the harness can only call it as declared",
                      pipeline, signature.name).str());
  return llvm::Error::success();
}

llvm::Expected<ResolvedPipeline> MeasurementChild::resolve(llvm::StringRef spec) {
  ResolvedPipeline resolved{spec.str(), std::nullopt};
  if (request.resolvePipeline) {
    auto named = request.resolvePipeline(*module, spec, request.target);
    if (!named)
      return llvm::make_error<PipelineError>(PipelineFailure::Invalid,
                                             llvm::toString(named.takeError()));
    resolved = std::move(*named);
  }
  resolved.text = normalizePipeline(resolved.text);
  return resolved;
}

llvm::Expected<Compiled> MeasurementChild::compile(const Variant &variant,
                                                   bool measureCodeSize) {
  llvm::StringRef role = variant.role, pipeline = variant.pipeline;
  unsigned llvmOptLevel = variant.llvmOptLevel;
  // The reference reads what a kernel left unwritten as the fill bytes
  // (JitOptions::opaqueHeap) and checks its accesses' bounds: its code is
  // its own.
  bool opaqueHeap = role == "reference";
  std::string heapKey = opaqueHeap ? "|opaque-heap" : "";
  std::string key = pipeline.str() + "|O" + std::to_string(llvmOptLevel) + heapKey;
  auto cached = compiledByPipeline.find(key);
  if (cached != compiledByPipeline.end())
    return cached->second;

  OwningOpRef<ModuleOp> copy = module->clone();
  Compiled compiled;
  auto compileStart = Clock::now();
  enterPhase(("pass:" + role).str());
  if (llvm::Error error =
          variant.transform ? variant.transform(*copy) : applyPipeline(*copy, pipeline))
    return std::move(error);
  if (llvm::Error error = checkEntryUnchanged(*copy, pipeline))
    return std::move(error);
  enterPhase(("lower:" + role).str());
  eraseFunctionsUnreachableFrom(*copy, signature.name);
  if (llvm::Error error = lowerToLLVMDialect(*copy, /*boundsChecks=*/opaqueHeap))
    return std::move(error);
  compiled.compileMs = millisecondsSince(compileStart);
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    copy->print(os);
    compiled.loweredIrHash =
        llvm::formatv("{0:x16}-O{1}{2}", llvm::xxh3_64bits(text), llvmOptLevel, entryKey).str();
  }
  if (request.stopAfterLowering)
    return compiled;
  auto sameCode = compiledByCode.find(compiled.loweredIrHash + heapKey);
  if (sameCode != compiledByCode.end() &&
      (!measureCodeSize || sameCode->second.kernel->codeSizeBytes() > 0)) {
    compiled.kernel = sameCode->second.kernel;
    compiled.jitMs = sameCode->second.jitMs;
    compiledByPipeline[key] = compiled;
    return compiled;
  }

  enterPhase(("jit:" + role).str());
  JitOptions options;
  options.optLevel = llvmOptLevel;
  options.measureCodeSize = measureCodeSize;
  options.opaqueHeap = opaqueHeap;
  auto kernel = CompiledKernel::compile(*copy, signature.name, target, options);
  if (!kernel)
    return llvm::make_error<PipelineError>(
        PipelineFailure::LoweringFailed,
        "JIT compilation failed: " + llvm::toString(kernel.takeError()));
  compiled.jitMs = (*kernel)->jitMilliseconds();
  compiled.kernel = std::move(*kernel);
  compiledByPipeline[key] = compiled;
  compiledByCode[compiled.loweredIrHash + heapKey] = compiled; // the hash names the level
  return compiled;
}

/// Reads what the kernel printed to stdout while \p fn ran.
static std::string captureStdout(llvm::function_ref<void()> fn) {
  std::fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  int capture = memfd_create("mqss-stdout", 0);
  if (saved < 0 || capture < 0) {
    fn();
    return "";
  }
  dup2(capture, STDOUT_FILENO);
  fn();
  std::cout.flush();
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  ::close(saved);
  std::string text;
  lseek(capture, 0, SEEK_SET);
  char chunk[65536];
  ssize_t got;
  while ((got = ::read(capture, chunk, sizeof(chunk))) > 0)
    text.append(chunk, got);
  ::close(capture);
  return text;
}

double MeasurementChild::runOnce(Variant &variant, bool collectOutputs) {
  arguments->restore();
  variant.compiled.kernel->restoreGlobals();
  double elapsed = 0;
  auto invoke = [&] {
    auto t0 = Clock::now();
    variant.compiled.kernel->invoke(variant.call->packedArguments());
    elapsed = millisecondsSince(t0);
  };
  if (!collectOutputs) {
    invoke();
  } else {
    std::string printed = captureStdout(invoke);
    variant.outputs.clear();
    arguments->readArguments(variant.outputs);
    variant.call->readResults(variant.outputs);
    OutputArray out;
    out.name = "stdout";
    out.text = std::move(printed);
    variant.outputs.push_back(std::move(out));
  }
  // Frees buffers the kernel returned or leaked, so repetitions do not grow.
  allocation::releaseAll();
  return elapsed;
}

namespace {
/// What an output check's run of a kernel sees, for as long as it lives:
/// what the kernel allocates starts as \p fill, and rtclock() counts its
/// calls (from 0) instead of telling the time. Timed runs see neither.
class CheckRunConditions {
public:
  explicit CheckRunConditions(uint8_t fill) {
    allocation::setFillByte(fill);
    timer::setCounting(true);
  }
  ~CheckRunConditions() {
    timer::setCounting(false);
    allocation::setFillByte(std::nullopt);
  }
  CheckRunConditions(const CheckRunConditions &) = delete;
  CheckRunConditions &operator=(const CheckRunConditions &) = delete;
};
} // namespace

/// Why \p reference's output, taken in the output check's run (buffers the
/// kernel allocates filled with 0x00), cannot be checked against, if it
/// cannot: a second run under the same conditions differs (the kernel is
/// nondeterministic: random numbers, printed addresses, racing threads; or
/// it reads stack memory, which no fill reaches), or a run
/// with 0xff differs (it reads memory it never wrote: a tensor.empty or
/// memref.alloc read before it is written). Either way the kernel is
/// undefined as written, not the candidate wrong.
std::optional<std::string> MeasurementChild::referenceIsUndefined(Variant &reference) {
  enterPhase("run:reference");
  std::vector<OutputArray> first = std::move(reference.outputs);
  auto differsFromFirst = [&](uint8_t fill) -> std::optional<std::string> {
    {
      CheckRunConditions conditions(fill);
      runOnce(reference, /*collectOutputs=*/true);
    }
    OutputCheck check = compareOutputs(first, reference.outputs, request.rtol);
    if (check.verdict != OutputCheck::Verdict::Fail)
      return std::nullopt;
    return check.firstMismatch;
  };
  std::optional<std::string> why;
  if (std::optional<std::string> differs = differsFromFirst(0x00))
    why = "the kernel's output differs between two identical naive runs (it is "
          "nondeterministic: random numbers, printed addresses, racing threads; or it reads "
          "memory it never wrote that the harness does not fill, such as a memref.alloca), "
          "so it cannot be checked: " + *differs;
  else if ((differs = differsFromFirst(0xff)))
    why = "the kernel's output depends on memory it never wrote (a tensor.empty or "
          "memref.alloc read before it is written, or a lowering that left part of the "
          "output unwritten), so it cannot be checked: two naive runs, its buffers filled "
          "with 0x00 and with 0xff, differ: " + *differs;
  reference.outputs = std::move(first);
  return why;
}

int MeasurementChild::run() {
  report.file = request.inputPath;
  report.seed = request.inputs.seed;
  report.target = request.target;
  report.candidate.pipeline = request.pipeline;
  if (request.baseline) {
    report.baseline.emplace();
    report.baseline->pipeline = *request.baseline;
  }

  allocation::setExhaustedHandler([](size_t) { exitChildOutOfMemory(); });
  auto resolved = resolveTarget(request.target);
  if (!resolved)
    return finishWithError(resolved.takeError(), RunStatus::InvalidInput);
  target = *resolved;
  report.targetCpu = target.cpu;

  enterPhase("parse");
  context = createContext();
  registerPasses();
  auto loaded = loadModuleFile(*context, request.inputPath);
  if (!loaded)
    return finishWithError(loaded.takeError(), RunStatus::ParseError);
  module = std::move(*loaded);
  // Declarations nothing calls cannot matter to the kernel; those with
  // tensors would stop every variant's bufferization.
  eraseUnusedTensorDeclarations(*module);

  enterPhase("entry");
  if (std::string refusal = refusalReason(*module); !refusal.empty())
    return finishWithError(
        llvm::createStringError(llvm::inconvertibleErrorCode(), refusal),
        RunStatus::InvalidInput);
  if (llvm::Error error = checkLowerable(*module)) // the module's doing, whatever runs
    return finishWithError(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                   llvm::toString(std::move(error))),
                           RunStatus::InvalidInput);
  auto entry = selectEntry(*module, request.entry);
  if (!entry)
    return finishWithError(entry.takeError(), RunStatus::InvalidInput);
  report.entry = entry->getSymName().str(); // named in an error about its arguments
  // Nor can a nested module's functions, which the lowering would rewrite
  // too (or fail on); selectEntry's error names such a module, so it is
  // taken out only now.
  eraseNestedPayloadModules(*module);
  std::optional<PassHazard> access;
  if (request.checkOutput && !(access = returnedStackBuffer(*entry)))
    access = staticOutOfBoundsAccess(*entry);
  if (access) {
    std::optional<std::string> where = fileLineColumn(access->op->getLoc());
    return finish(RunStatus::InvalidInput,
                  "the kernel is undefined as written, so its output cannot be checked: " +
                      (where ? *where + ": " : std::string()) + access->why);
  }
  auto described = describeSignature(*entry);
  if (!described)
    return finishWithError(described.takeError(), RunStatus::InvalidInput);
  signature = std::move(*described);
  report.entry = signature.name;
  if (!request.entry.empty()) {
    auto implied = selectEntry(*module, "");
    if (!implied || implied->getSymName() != signature.name)
      entryKey = "@" + signature.name;
    if (!implied)
      llvm::consumeError(implied.takeError());
  }
  {
    // Tell the parent early, so that a crash report can still name them.
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(llvm::json::Object{{"event", "entry"},
                                               {"entry", signature.name},
                                               {"target_cpu", target.cpu}});
    channel.send(text);
  }
  // A module written for another machine (an aarch64 triple from a
  // cross-compiling frontend) is compiled for this one: said, not hidden.
  if (auto triple = (*module)->getAttrOfType<StringAttr>("llvm.target_triple"))
    if (llvm::Triple(triple.getValue()).getArch() !=
        llvm::Triple(llvm::sys::getProcessTriple()).getArch())
      report.notes.push_back(("the module's llvm.target_triple '" + triple.getValue() +
                              "' is not this machine's: it is compiled for the host (" +
                              llvm::sys::getProcessTriple() + ", " + target.cpu + ")")
                                 .str());
  // Marked before any pipeline runs, so that a pipeline which lowers to the
  // LLVM dialect itself still produces the C interface the harness calls.
  (*entry)->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(context.get()));

  enterPhase("resolve:candidate");
  auto candidateResolved = resolve(request.pipeline);
  if (!candidateResolved)
    return finishWithError(candidateResolved.takeError(), RunStatus::InvalidPipeline);
  std::optional<ResolvedPipeline> baselineResolved;
  if (request.baseline) {
    // Named apart: a failure here is the baseline's, not the candidate's.
    enterPhase("resolve:baseline");
    auto resolved = resolve(*request.baseline);
    if (!resolved)
      return finishWithError(resolved.takeError(), RunStatus::InvalidPipeline);
    baselineResolved = std::move(*resolved);
  }
  std::string candidatePipeline = candidateResolved->text;
  std::optional<std::string> baselinePipeline;
  if (baselineResolved)
    baselinePipeline = baselineResolved->text;
  for (const std::string &note : candidateResolved->notes)
    report.notes.push_back("candidate: " + note);
  if (baselineResolved)
    for (const std::string &note : baselineResolved->notes)
      report.notes.push_back("baseline: " + note);
  report.candidate.resolvedPipeline = candidatePipeline;
  if (baselineResolved)
    report.baseline->resolvedPipeline = *baselinePipeline;
  for (const ResolvedPipeline *resolved :
       {&*candidateResolved, baselineResolved ? &*baselineResolved : nullptr})
    if (resolved && !resolved->transform)
      if (llvm::Error error = validatePipeline(*context, resolved->text))
        return finishWithError(std::move(error), RunStatus::InvalidPipeline);

  enterPhase("entry"); // its arguments
  size_t notesBefore = report.notes.size();
  auto args = KernelArguments::create(signature, request.inputs, report.notes);
  if (!args)
    return finishWithError(args.takeError(), RunStatus::InvalidInput);
  arguments = std::move(*args);
  if (report.notes.size() > notesBefore) {
    // Told early too: a defaulted argument (a loop step of 0) is a likely
    // cause of a timeout or crash, which ends the child before its report.
    llvm::json::Array notes;
    for (size_t i = notesBefore; i < report.notes.size(); ++i)
      notes.push_back(report.notes[i]);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(
        llvm::json::Object{{"event", "argument-notes"}, {"notes", std::move(notes)}});
    channel.send(text);
  }

  // Compile: the naive reference first, so a kernel that cannot be lowered at
  // all is reported as such rather than blamed on the candidate.
  Variant reference{"reference", "", request.llvmOptLevel};
  Variant candidate{"candidate", candidatePipeline,
                    candidateResolved->llvmOptLevel.value_or(request.llvmOptLevel),
                    candidateResolved->transform};
  std::optional<Variant> baseline;
  if (baselinePipeline)
    baseline = Variant{"baseline", *baselinePipeline,
                       baselineResolved->llvmOptLevel.value_or(request.llvmOptLevel),
                       baselineResolved->transform};
  std::vector<Variant *> variants = {&reference, &candidate};
  if (baseline)
    variants.push_back(&*baseline);
  if (request.stopAfterLowering) {
    auto compiled = compile(candidate, false);
    if (!compiled)
      return finishWithError(compiled.takeError(), RunStatus::PassFailed);
    report.candidate.compileMs = compiled->compileMs;
    report.candidate.loweredIrHash = compiled->loweredIrHash;
    report.candidate.output.reason = "stopped after lowering";
    return finish(RunStatus::Ok);
  }
  for (Variant *variant : variants) {
    // Only reported pipelines need their code size (it costs an object dump).
    bool reported = variant->pipeline == candidatePipeline ||
                    (baselinePipeline && variant->pipeline == *baselinePipeline);
    auto compiled = compile(*variant, reported);
    if (!compiled)
      return finishWithError(compiled.takeError(), RunStatus::PassFailed);
    variant->compiled = *compiled;
    variant->call = std::make_unique<KernelCall>(signature, *arguments);
  }
  auto fillCompileFigures = [](VariantReport &out, const Variant &variant) {
    out.compileMs = variant.compiled.compileMs;
    out.loweredIrHash = variant.compiled.loweredIrHash;
    out.jitMs = variant.compiled.jitMs;
    out.codeSizeBytes = variant.compiled.kernel->codeSizeBytes();
  };
  fillCompileFigures(report.candidate, candidate);
  if (baseline)
    fillCompileFigures(*report.baseline, *baseline);
  for (Variant *variant : {&candidate, baseline ? &*baseline : nullptr})
    if (variant && variant->compiled.kernel->entryDoesNothing())
      report.notes.push_back(
          variant->role + ": @" + signature.name +
          (variant->compiled.kernel->entryReturnsConstant()
               ? " returns a constant once LLVM has optimized it (its result does not "
                 "depend on its arguments)"
               : " does nothing once LLVM has optimized it (nothing it computes reaches an "
                 "argument or a result)") +
          ": its runtime is that of an empty call");

  // Output check: one run of each from the same seeded inputs. What they
  // allocate starts as 0x00 for the reference and 0xff for the others, so a
  // kernel that reads memory it never wrote fails the check every time, not
  // by chance (referenceIsUndefined then tells it from a wrong candidate).
  // rtclock() counts its calls instead, so a printed elapsed time is the
  // same in every run.
  for (Variant *variant : variants) {
    enterPhase("run:" + variant->role);
    std::optional<CheckRunConditions> conditions;
    if (request.checkOutput)
      conditions.emplace(variant == &reference ? 0x00 : 0xff);
    runOnce(*variant, /*collectOutputs=*/request.checkOutput);
  }
  if (request.checkOutput) {
    // A wrong output is the candidate's, not that of the variant run last
    // (the baseline) nor the reference's reruns: search and training take
    // a failure in a baseline's or the reference's phase for the module's.
    enterPhase("check:candidate");
    report.candidate.output =
        compareOutputs(reference.outputs, candidate.outputs, request.rtol);
    if (baseline) {
      report.baseline->output =
          compareOutputs(reference.outputs, baseline->outputs, request.rtol);
      if (report.baseline->output.verdict == OutputCheck::Verdict::Fail)
        report.notes.push_back("the baseline's output differs from the naive "
                               "reference: " + report.baseline->output.firstMismatch);
    }
    if (report.candidate.output.verdict == OutputCheck::Verdict::Fail) {
      // Before blaming the candidate: is the kernel itself undefined?
      if (std::optional<std::string> why = referenceIsUndefined(reference))
        return finish(RunStatus::InvalidInput, *why);
      // Where the reruns happened to agree (heap contents read out of bounds
      // vary with what was allocated before), identical code settles it.
      if (candidate.compiled.loweredIrHash == reference.compiled.loweredIrHash)
        return finish(RunStatus::InvalidInput,
                      "the candidate lowers to the same code as the naive reference, yet their "
                      "outputs differ: the kernel's output is undefined as written (it reads "
                      "memory it does not own, such as an index past its buffer's bounds, or "
                      "memory it never wrote), so it cannot be checked: " +
                          report.candidate.output.firstMismatch);
      enterPhase("check:candidate"); // after the reference's reruns
      return finish(RunStatus::WrongOutput,
                    "the candidate's output differs from the naive reference: " +
                        report.candidate.output.firstMismatch);
    }
    // LLVM takes memory fresh from malloc for undefined, so a variant that
    // reads it before writing it may fold to a constant whatever the fill,
    // and agree with the reference's 0x00 run by chance (CIRCT's test
    // returning a load of a bare memref.alloc). The reference's heap is
    // opaque, so it cannot fold so: its 0xff run tells.
    auto folded = [](const Variant &variant) {
      return variant.compiled.kernel->entryDoesNothing();
    };
    if (!folded(reference) && (folded(candidate) || (baseline && folded(*baseline))))
      if (std::optional<std::string> why = referenceIsUndefined(reference))
        return finish(RunStatus::InvalidInput, *why);
  } else {
    report.candidate.output.reason = "disabled with --no-check";
    if (baseline)
      report.baseline->output.reason = "disabled with --no-check";
  }

  // Timing: warm-up, then A B A B ... so drift cancels in the ratio. Where
  // both lowered to the same code, timing it twice would report only noise
  // (identical code in two places differs by up to 15% on a loaded machine):
  // it is timed once, and the speedup is 1.
  bool sameCode = baseline && baseline->compiled.kernel == candidate.compiled.kernel;
  if (sameCode)
    report.notes.push_back("candidate and baseline lower to the same code: timed once, "
                           "their speedup is 1");
  std::vector<Variant *> timed = {&candidate};
  if (baseline && !sameCode)
    timed.push_back(&*baseline);
  enterPhase("timing");
  for (unsigned w = 0; w < request.warmup; ++w)
    for (Variant *variant : timed)
      runOnce(*variant, false);
  double budgetMs = request.limits.timeoutSeconds > 0
                        ? request.limits.timeoutSeconds * 1000 * 0.6
                        : INFINITY;
  auto timingStart = Clock::now();
  unsigned rounds = 0;
  while (true) {
    double elapsed = millisecondsSince(timingStart);
    bool enough = rounds >= request.reps && elapsed >= request.minTimeMs;
    if (enough || rounds >= kMaxRounds)
      break;
    if (rounds >= 1 && millisecondsSince(start) >= budgetMs) {
      report.notes.push_back(llvm::formatv(
          "stopped after {0} timed rounds to stay within --timeout-s", rounds));
      break;
    }
    for (Variant *variant : timed)
      variant->samples.push_back(runOnce(*variant, false));
    ++rounds;
  }
  report.rounds = rounds;
  if (sameCode)
    baseline->samples = candidate.samples;
  if (baseline)
    report.speedup = pairedSpeedup(baseline->samples, candidate.samples);
  report.candidate.runtimeMs = summarize(std::move(candidate.samples));
  if (baseline)
    report.baseline->runtimeMs = summarize(std::move(baseline->samples));
  return finish(RunStatus::Ok);
}

/// What a failed bounds check of insertBoundsChecks printed, as "memref.load
/// at FILE:LINE:COL": upstream's message, which names the op in generic form
/// and its location; none where \p printed is another message.
static std::optional<std::string> outOfBoundsAccess(llvm::StringRef printed) {
  if (!printed.contains("Runtime op verification failed") ||
      !printed.contains("out-of-bounds access"))
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> op, location, place;
  llvm::Regex("\"([a-z_0-9]+\\.[a-z_0-9]+)\"\\(").match(printed, &op);
  llvm::Regex("Location: loc\\(([^\n]*)\\)").match(printed, &location);
  std::string where;
  if (location.size() > 1) {
    // loc("file":L:C) reads as file:L:C; other locations as printed.
    if (llvm::Regex("^\"([^\"]*)\"(:[0-9]+:[0-9]+)$").match(location[1], &place))
      where = " at " + place[1].str() + place[2].str();
    else
      where = " at " + location[1].str();
  }
  // Views are reinterpret_casts by then, whatever made them.
  if (printed.contains("a view reaching past"))
    return "the view made" + where +
           " (a memref.subview, reinterpret_cast or expand_shape, or a tensor slice once "
           "bufferized) reaches past the memref it views";
  return (op.size() > 1 ? op[1].str() : "an access") + where;
}

/// How a child that sent no report ended, as a status.
static RunStatus classifyAbnormalEnd(const SandboxOutcome &outcome,
                                     bool sawOutOfMemory) {
  if (outcome.end == SandboxOutcome::End::TimedOut)
    return RunStatus::Timeout;
  if (sawOutOfMemory ||
      (outcome.end == SandboxOutcome::End::Exited &&
       outcome.exitCode == kExitOutOfMemory))
    return RunStatus::OutOfMemory;
  // SIGKILL we did not send comes from the kernel's OOM killer.
  if (outcome.end == SandboxOutcome::End::Signaled && outcome.signal == SIGKILL)
    return RunStatus::OutOfMemory;
  return RunStatus::Crash;
}

RunReport runMeasurement(const RunRequest &request) {
  auto outcome = runSandboxed(request.limits, [&](SandboxChannel &channel) {
    MeasurementChild child(request, channel);
    return child.run();
  });

  RunReport report;
  report.file = request.inputPath;
  report.target = request.target;
  report.entry = request.entry;
  report.seed = request.inputs.seed;
  report.candidate.pipeline = request.pipeline;
  if (!outcome) {
    report.status = RunStatus::Crash;
    report.message = "could not start the measurement child: " +
                     llvm::toString(outcome.takeError());
    return report;
  }

  std::string lastPhase;
  std::vector<std::string> argumentNotes;
  bool sawOutOfMemory = false;
  bool haveReport = false;
  for (const std::string &line : outcome->messages) {
    auto parsed = llvm::json::parse(line);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      continue;
    }
    const llvm::json::Object *event = parsed->getAsObject();
    if (!event)
      continue;
    std::optional<llvm::StringRef> kind = event->getString("event");
    if (kind == "phase") {
      lastPhase = event->getString("phase").value_or("").str();
    } else if (kind == "entry") {
      report.entry = event->getString("entry").value_or("").str();
      report.targetCpu = event->getString("target_cpu").value_or("").str();
    } else if (kind == "argument-notes") {
      if (const llvm::json::Array *notes = event->getArray("notes"))
        for (const llvm::json::Value &note : *notes)
          if (std::optional<llvm::StringRef> text = note.getAsString())
            argumentNotes.push_back(text->str());
    } else if (kind == "out-of-memory") {
      sawOutOfMemory = true;
    } else if (kind == "report") {
      llvm::json::Path::Root root("report");
      if (const llvm::json::Value *value = event->get("report"))
        haveReport = fromJSON(*value, report, root);
    }
  }

  if (!haveReport) {
    report.status = classifyAbnormalEnd(*outcome, sawOutOfMemory);
    report.phase = lastPhase;
    std::string during = lastPhase.empty() ? "" : " during " + lastPhase;
    switch (report.status) {
    case RunStatus::Timeout:
      report.message = llvm::formatv("no result within --timeout-s={0}{1}",
                                     request.limits.timeoutSeconds, during);
      // LLVM's backend is quadratic in a basic block's length: a long
      // straight-line function makes one, and at -O3 LLVM can also fully
      // unroll loops with constant trip counts into one.
      if (llvm::StringRef(lastPhase).starts_with("jit:")) {
        report.message += ": the time went into LLVM's compilation, whose backend is very "
                          "slow on long basic blocks (a function of many thousands of "
                          "straight-line ops makes one";
        // -O2 leaves constant-trip loops rolled, but its own passes can
        // still take minutes on wide vector math (4096 erf calls): -O0
        // is the level that compiles fastest.
        report.message += request.llvmOptLevel >= 3
                              ? "; at -O3 LLVM also unrolls loops with constant trip counts "
                                "into one, which -O2 avoids): try mqss run --llvm-opt=2, "
                                "else --llvm-opt=0 (fastest to compile) or a larger --timeout-s"
                          : request.llvmOptLevel > 0
                              ? "): try mqss run --llvm-opt=0 (fastest to compile) or a "
                                "larger --timeout-s"
                              : "): a larger --timeout-s may let it finish";
      } else if (llvm::StringRef(lastPhase).starts_with("lower:")) {
        // MLIR unrolls n-D vector ops into 1-D ones as it lowers them.
        report.message += ": the time went into MLIR's passes, the pipeline's or the lowering "
                          "to LLVM IR (which unrolls n-D vector ops into one op per row: a "
                          "vector<64x128x32xf32> makes 8192); a larger --timeout-s may let "
                          "it finish";
      }
      break;
    case RunStatus::OutOfMemory:
      report.message = llvm::formatv(
          "ran out of memory{0} (limit {1} MiB, --memory-limit-mb)", during,
          request.limits.memoryBytes >> 20);
      break;
    default:
      report.message = "the measurement child " + outcome->describe() + during;
      if (size_t at = outcome->stderrTail.rfind(kAbortMarker.str());
          at != std::string::npos) {
        llvm::StringRef printed =
            llvm::StringRef(outcome->stderrTail).substr(at + kAbortMarker.size()).trim();
        if (std::optional<std::string> access = outOfBoundsAccess(printed);
            access && llvm::StringRef(lastPhase).ends_with(":reference")) {
          report.status = RunStatus::InvalidInput;
          report.message = "the kernel accesses memory out of bounds under these inputs: " +
                           *access +
                           " (found by the naive reference, which checks every access "
                           "against its buffer's bounds; see --shape and --arg)";
          break;
        }
        report.message += ": the kernel called abort(), as a failed cf.assert does";
        auto [before, lastLine] = printed.rsplit('\n');
        if (!printed.empty())
          report.message += ", after printing: " + (lastLine.empty() ? before : lastLine).str();
        if (llvm::StringRef(lastPhase).ends_with(":reference"))
          report.message += " (in the naive reference: the kernel itself fails under these "
                            "inputs; see --seed, --arg and --shape)";
      }
      break;
    }
    // What the child defaulted may be why it never reported.
    bool running = llvm::StringRef(lastPhase).starts_with("run:");
    if (running && !argumentNotes.empty())
      report.message += " (note: " + llvm::join(argumentNotes, "; ") + ")";
    report.notes = argumentNotes;
    report.diagnostics = outcome->stderrTail;
  } else if (!report.ok() && report.diagnostics.empty()) {
    report.diagnostics = outcome->stderrTail;
  }
  report.cpu = outcome->pinnedCpu;
  report.wallMs = outcome->wallMs;
  return report;
}

} // namespace mqss
