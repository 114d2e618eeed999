//===- SelectCommand.cpp - `mqss select` and `mqss explain` -----------------===//
//
// Both are thin over mqss::Selector: select prints the chosen sequences, the
// equivalent pipelines, the optimized IR (or LLVM IR); explain prints, per
// decision, the features that pushed the policy towards it and the actions
// it passed over.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mqss/Actions/Sequence.h"
#include "mqss/Env/Environment.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"
#include "mqss/IR/Loader.h"
#include "mqss/Runtime/Buffers.h"
#include "mqss/Runtime/Jit.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Selector/Selector.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand selectCommand(
    "select", "Let the policy choose the action sequence for each function of a module and "
              "print the equivalent pass pipeline, the optimized IR, LLVM IR, or JSON");
static cl::opt<std::string> input(cl::Positional, cl::Required, cl::desc("<kernel.mlir>"),
                                  cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> model("model", cl::desc("Model file (default: the shipped one)"),
                                  cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> target("target", cl::desc("Target the policy decides for"),
                                   cl::init("host"), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string>
    emit("emit",
         cl::desc("pipeline (default): the pass pipeline, one per function when they differ; "
                  "mlir: the optimized IR; llvm: it lowered to LLVM IR; json: everything"),
         cl::init("pipeline"), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> guard(
    "guard", cl::desc("none (default) or measure: time the policy's top candidates against "
                      "`default` and keep `default` unless one is faster"),
    cl::init("none"), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> guardEntry(
    "entry", cl::desc("With --guard=measure: the function to run (default: the only public one)"),
    cl::sub(selectCommand), cl::cat(category()));
static cl::list<std::string> guardShapes(
    "shape",
    cl::desc("With --guard=measure: sizes of a dynamically shaped argument, e.g. arg3=20x30 "
             "(repeatable)"),
    cl::sub(selectCommand), cl::cat(category()));
static cl::list<std::string> guardArgs(
    "arg", cl::desc("With --guard=measure: value of a scalar argument, e.g. arg0=20 (repeatable)"),
    cl::sub(selectCommand), cl::cat(category()));
static cl::opt<double> guardTimeout(
    "timeout-s",
    cl::desc("With --guard=measure: the most seconds one measurement may run (default 60); "
             "a kernel that hangs in its naive reference ends the selection after one"),
    cl::init(60), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<unsigned> maxSteps("max-steps", cl::desc("Most decisions per function"),
                                  cl::init(8), cl::sub(selectCommand), cl::cat(category()));
static cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"), cl::init("-"),
                                   cl::sub(selectCommand), cl::cat(category()));
static cl::opt<unsigned> threads(
    "threads",
    cl::desc("Threads deciding the module's functions when only pipelines are printed "
             "(--emit=pipeline or json, no guard); each parses its share of the functions "
             "(and those they call) into its own MLIR context. 0 (default): two, or one on "
             "a single-core machine"),
    cl::init(0), cl::sub(selectCommand), cl::cat(category()));

cl::SubCommand explainCommand(
    "explain", "Explain the policy's decisions on a module: per decision, the features that "
               "contributed most (gradient x input) and the runner-up actions");
static cl::opt<std::string> explainInput(cl::Positional, cl::Required,
                                         cl::desc("<kernel.mlir>"), cl::sub(explainCommand),
                                         cl::cat(category()));
static cl::opt<std::string> explainModel("model",
                                         cl::desc("Model file (default: the shipped one)"),
                                         cl::sub(explainCommand), cl::cat(category()));
static cl::opt<std::string> explainTarget("target", cl::desc("Target the policy decides for"),
                                          cl::init("host"), cl::sub(explainCommand),
                                          cl::cat(category()));
static cl::opt<unsigned> topK("top", cl::desc("Features and alternatives per decision"),
                              cl::init(3), cl::sub(explainCommand), cl::cat(category()));
static cl::opt<bool> explainJson("json", cl::desc("Print JSON"), cl::sub(explainCommand),
                                 cl::cat(category()));
static cl::opt<bool> allowUnregistered(
    "allow-unregistered-dialect",
    cl::desc("Accept ops of dialects MLIR does not know (as mlir-opt's flag of that name); "
             "passes treat them conservatively"),
    cl::sub(selectCommand), cl::sub(explainCommand), cl::cat(category()));

static cl::opt<std::string> smallKernels(
    "small-kernels",
    cl::desc("A function executing under half the ops of the smallest kernel the model was "
             "trained on gets `default`'s plan (default) or the policy's (policy)"),
    cl::init("default"), cl::sub(selectCommand), cl::sub(explainCommand), cl::cat(category()));

namespace {
/// JSON mode: select --emit=json, explain --json.
bool jsonErrors = false;

int commandError(StringRef tool, const Twine &message) {
  return reportError(tool, message, jsonErrors, 1);
}

/// A bad option (a value mqss refuses, an unknown target or model, a FILE
/// that cannot be read): exit code 2, as `mqss run` gives it.
int usageError(StringRef tool, const Twine &message) {
  return reportError(tool, message, jsonErrors, 2);
}

/// The exit code of the last load() that failed: 2 for a bad option or an
/// unreadable FILE, 1 for a module that does not parse or verify.
int loadFailure = 1;

/// A context with everything registered, the selector and the module (or
/// only its text, for Selector::selectSource to parse).
struct Loaded {
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<Selector> selector;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<MemoryBuffer> source;
};

/// Loads the model first (a bad model or target is reported before parsing
/// a large module), then the module, or only its text when \p parse is
/// false. Prints the error and returns null.
std::optional<Loaded> load(StringRef tool, StringRef path, SelectorOptions options,
                           bool parse = true) {
  Loaded loaded;
  auto toDefault = smallKernelsToDefault(smallKernels);
  if (!toDefault) {
    loadFailure = usageError(tool, toString(toDefault.takeError()));
    return std::nullopt;
  }
  options.deferBelowTrainingRange = *toDefault;
  auto selector = Selector::create(options);
  if (!selector) {
    loadFailure = usageError(tool, toString(selector.takeError()));
    return std::nullopt;
  }
  loaded.selector = std::move(*selector);
  loaded.context = createContext();
  loaded.context->allowUnregisteredDialects(allowUnregistered);
  registerPasses();
  if (!parse) {
    auto source = readModuleFile(path);
    if (!source) {
      loadFailure = reportLoadError(tool, source.takeError(), jsonErrors);
      return std::nullopt;
    }
    loaded.source = std::move(*source);
    return loaded;
  }
  auto module = loadModuleFile(*loaded.context, path);
  if (!module) {
    loadFailure = reportLoadError(tool, module.takeError(), jsonErrors);
    return std::nullopt;
  }
  loaded.module = std::move(*module);
  return loaded;
}


Error printLLVMIR(mlir::ModuleOp module, raw_ostream &os) {
  // One LLVM module holds no nested one: the functions of nested modules,
  // which the selection left as they were (and said so), stay out.
  stripToTopLevelPayload(module);
  if (Error error = lowerToLLVMDialect(module))
    return error;
  LLVMContext llvmContext;
  DiagnosticCollector diagnostics(*module.getContext()); // file:line:col, as above
  std::unique_ptr<Module> llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return createStringError(inconvertibleErrorCode(),
                             "cannot translate the lowered module to LLVM IR (an op with "
                             "no LLVM translation for a CPU is left):\n" +
                                 StringRef(diagnostics.text()).rtrim());
  // As the JIT does: llc and lli cannot select LLVM's matrix intrinsics.
  lowerMatrixIntrinsics(*llvmModule);
  llvmModule->print(os, nullptr);
  return Error::success();
}
} // namespace

/// Selection::pastingNote() on the module as loaded, parsed again when only
/// pipelines were printed (the helper threads' parts are gone) and its text
/// says a note may be due.
static std::string pastingNote(const Selection &selection, const Loaded &loaded) {
  if (loaded.module)
    return selection.pastingNote(*loaded.module);
  if (!selection.mayNeedPastingNote(loaded.source->getBuffer()))
    return "";
  DiagnosticCollector quiet(*loaded.context);
  auto reparsed = loadModuleSource(*loaded.context, loaded.source->getBuffer(),
                                   loaded.source->getBufferIdentifier());
  if (!reparsed) {
    consumeError(reparsed.takeError());
    return "";
  }
  return selection.pastingNote(**reparsed);
}

/// "@a, @b and @c", or the first names and how many more: a module from a
/// frontend can hold hundreds of functions that a note applies to alike.
static std::string functionList(ArrayRef<std::string> names) {
  constexpr size_t kListed = 6;
  std::string text;
  size_t listed = names.size() > kListed + 1 ? kListed : names.size();
  for (size_t i = 0; i < listed; ++i) {
    if (i)
      text += i + 1 == names.size() ? " and " : ", ";
    text += "@" + names[i];
  }
  if (listed < names.size())
    text += llvm::formatv(" and {0} more", names.size() - listed).str();
  return text;
}

/// The small-kernel rule's notes: each function's in full while they are
/// few; past that the first in full (it says why) and the others by name,
/// whose counts --emit=json gives.
static void printSmallKernelNotes(StringRef tool, const Selection &selection) {
  constexpr size_t kInFull = 3;
  std::vector<const FunctionSelection *> noted;
  for (const FunctionSelection &function : selection.functions)
    if (!function.note.empty())
      noted.push_back(&function);
  size_t inFull = noted.size() > kInFull ? 1 : noted.size();
  for (size_t i = 0; i < inFull; ++i)
    WithColor::note(errs(), tool) << "@" << noted[i]->name << " " << noted[i]->note
                                  << " (--small-kernels=policy keeps the policy's)\n";
  if (inFull == noted.size())
    return;
  std::vector<std::string> rest;
  for (size_t i = inFull; i < noted.size(); ++i)
    rest.push_back(noted[i]->name);
  WithColor::note(errs(), tool)
      << rest.size() << " more functions execute under half the smallest kernel the model "
      << "was trained on and get `default`'s plan: " << functionList(rest)
      << " (--emit=json gives their counts)\n";
}

/// What printed pipelines cannot say: that one is empty, and the LLVM level
/// of a plan's finish action when it is not -O3. One note per kind and
/// level, naming the functions it applies to.
static void printUnprintableNotes(StringRef tool, const Selection &selection) {
  std::map<unsigned, std::vector<std::string>> empty, belowO3; // by LLVM level
  for (const FunctionSelection &function : selection.functions) {
    unsigned level = llvmOptLevelFor(function.actions);
    if (function.pipeline.empty())
      empty[level].push_back(function.name);
    else if (level != 3)
      belowO3[level].push_back(function.name);
    if (selection.uniform())
      break;
  }
  auto whose = [&](ArrayRef<std::string> names) {
    if (selection.uniform())
      return std::string("the plan");
    return names.size() == 1 ? "@" + names.front() + "'s plan"
                             : "the plans of " + functionList(names);
  };
  for (const auto &[level, names] : empty)
    WithColor::note(errs(), tool)
        << whose(names) << (names.size() == 1 ? " runs" : " run")
        << " no MLIR pass: the module is lowered as it is, then compiled at LLVM -O" << level
        << "\n";
  for (const auto &[level, names] : belowO3)
    WithColor::note(errs(), tool) << whose(names) << (names.size() == 1 ? " compiles" : " compile")
                                  << " at LLVM -O" << level << " (finish-O" << level
                                  << "), not -O3\n";
}

int selectMain() {
  static constexpr StringLiteral tool = "mqss select";
  jsonErrors = emit == "json";
  if (emit != "pipeline" && emit != "mlir" && emit != "llvm" && emit != "json")
    return usageError(tool, "--emit must be pipeline, mlir, llvm or json");
  if (guard != "none" && guard != "measure")
    return usageError(tool, "--guard must be none or measure");
  auto start = std::chrono::steady_clock::now();
  SelectorOptions options;
  options.modelPath = model;
  options.target = target;
  options.maxSteps = maxSteps;
  if (guard != "measure" && (guardEntry.getNumOccurrences() || !guardShapes.empty() ||
                             !guardArgs.empty() || guardTimeout.getNumOccurrences()))
    return usageError(tool, "--entry, --shape, --arg and --timeout-s say how to run the "
                              "kernel: they need --guard=measure");
  if (!(guardTimeout > 0))
    return usageError(tool, "--timeout-s must be a positive number of seconds");
  // Each thread parses its share in its own context: more than a machine
  // has cores gains nothing, and 100,000 ran out of threads (an abort).
  // (Selector::create refuses it too, by the same bound, without the flag's
  // name.)
  if (threads > kMaxSelectorThreads)
    return usageError(tool, "--threads must be at most " + Twine(kMaxSelectorThreads));
  options.guardEntry = guardEntry;
  options.guardTimeoutSeconds = guardTimeout;
  if (Error error = options.parseGuardInputs(guardShapes, guardArgs))
    return usageError(tool, toString(std::move(error)));
  // Printing only pipelines needs no optimized module: the functions can be
  // decided on several threads, each parsing its part of the text.
  bool onlyPipelines = guard != "measure" && (emit == "pipeline" || emit == "json");
  // The helper threads start with the selector: only when they will work.
  options.threads = !onlyPipelines ? 1
                    : threads      ? threads
                                   : std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
  std::optional<Loaded> loaded = load(tool, input, options, /*parse=*/!onlyPipelines);
  if (!loaded)
    return loadFailure;
  mlir::ModuleOp module = loaded->module ? *loaded->module : mlir::ModuleOp();

  Expected<Selection> selection = Selection();
  if (onlyPipelines) {
    selection = loaded->selector->selectSource(*loaded->context, loaded->source->getBuffer(),
                                               loaded->source->getBufferIdentifier());
    if (!selection && selection.errorIsA<LoadError>()) {
      return reportLoadError(tool, selection.takeError(), jsonErrors);
    }
  } else if (guard == "measure") {
    selection = loaded->selector->selectMeasured(module);
    if (selection)
      if (Error error = loaded->selector->apply(module, *selection))
        return commandError(tool, toString(std::move(error)));
  } else {
    selection = loaded->selector->optimize(module);
  }
  if (!selection)
    return commandError(tool, toString(selection.takeError()));
  double selectMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  printSmallKernelNotes(tool, *selection);
  for (const std::string &note : selection->notes)
    WithColor::note(errs(), tool) << note << "\n";
  for (const std::string &note : selection->measurementNotes)
    WithColor::note(errs(), tool) << "guard: " << note << "\n";
  std::string pasting = emit == "pipeline" || emit == "json" ? pastingNote(*selection, *loaded) : "";
  for (StringRef line : split(pasting, '\n'))
    if (!line.empty())
      WithColor::note(errs(), tool) << line << "\n";

  std::error_code ec;
  ToolOutputFile out(output, ec, sys::fs::OF_Text);
  if (ec)
    return commandError(tool, "cannot write '" + output + "': " + ec.message());
  if (emit == "pipeline") {
    printUnprintableNotes(tool, *selection);
    if (selection->uniform()) {
      out.os() << selection->functions.front().pipeline << "\n";
    } else {
      out.os() << kPerFunctionListingHeader << "\n";
      for (const FunctionSelection &function : selection->functions)
        out.os() << "// @" << function.name << "\n" << function.pipeline << "\n";
    }
  } else if (emit == "mlir") {
    module->print(out.os());
    out.os() << "\n";
  } else if (emit == "llvm") {
    if (Error error = printLLVMIR(module, out.os()))
      return commandError(tool, toString(std::move(error)));
  } else {
    json::Array functions;
    for (const FunctionSelection &function : selection->functions) {
      double micros = 0;
      for (double us : function.decisionMicros)
        micros += us;
      json::Object record{{"name", function.name},
                          {"actions", actionNamesJson(function.actions)},
                          {"pipeline", function.pipeline},
                          {"chosen", function.chosen},
                          {"decision_us", micros}};
      if (!function.note.empty())
        record["note"] = function.note;
      functions.push_back(std::move(record));
    }
    json::Object object{{"file", std::string(input)},
                        {"target", std::string(target)},
                        {"model", loaded->selector->modelPath()},
                        {"functions", std::move(functions)},
                        {"uniform", selection->uniform()},
                        {"chosen", selection->chosen},
                        {"decision_us", selection->decisionMicros},
                        {"pass_us", selection->passMicros},
                        {"select_ms", selectMs}};
    if (selection->measuredSpeedup)
      object["measured_speedup_vs_default"] = *selection->measuredSpeedup;
    if (!selection->measurementNotes.empty())
      object["measurement_notes"] = selection->measurementNotes;
    if (!selection->notes.empty())
      object["notes"] = selection->notes;
    if (!pasting.empty())
      object["pipeline_note"] = pasting;
    out.os() << formatv("{0:2}", json::Value(std::move(object))) << "\n";
  }
  return finishOutput(out, output, tool) ? 0 : 1;
}

int explainMain() {
  static constexpr StringLiteral tool = "mqss explain";
  jsonErrors = explainJson;
  if (topK == 0)
    return usageError(tool, "--top must be at least 1");
  SelectorOptions options;
  options.modelPath = explainModel;
  options.target = explainTarget;
  std::optional<Loaded> loaded = load(tool, explainInput, options);
  if (!loaded)
    return loadFailure;
  std::vector<std::string> notes;
  auto decisions = loaded->selector->explain(*loaded->module, topK, &notes);
  if (!decisions)
    return commandError(tool, toString(decisions.takeError()));

  if (explainJson) {
    json::Array array;
    for (const DecisionExplanation &decision : *decisions) {
      json::Array features, alternatives;
      for (const FeatureWeight &feature : decision.topFeatures)
        features.push_back(json::Object{{"name", feature.name}, {"weight", feature.weight}});
      for (const ActionProbability &alternative : decision.alternatives)
        alternatives.push_back(json::Object{{"action", alternative.action->name},
                                            {"probability", alternative.probability}});
      array.push_back(json::Object{{"function", decision.function},
                                   {"step", decision.step},
                                   {"stage", stageName(decision.stage)},
                                   {"action", decision.action->name},
                                   {"probability", decision.probability},
                                   {"top_features", std::move(features)},
                                   {"alternatives", std::move(alternatives)}});
    }
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"file", std::string(explainInput)},
                                   {"target", std::string(explainTarget)},
                                   {"attribution", "gradient x input of log p(action)"},
                                   {"decisions", std::move(array)},
                                   {"notes", json::Array(notes)}}))
           << "\n";
    return 0;
  }
  outs() << "Attribution: gradient x input of the chosen action's log-probability "
            "(positive pushed towards it).\n";
  for (const std::string &note : notes)
    outs() << "Note: " << note << "\n";
  std::string function;
  for (const DecisionExplanation &decision : *decisions) {
    if (decision.function != function) {
      function = decision.function;
      outs() << "\n@" << function << "\n";
    }
    outs() << formatv("  {0}. [{1}] {2}  p={3:F2}\n", decision.step + 1,
                      stageName(decision.stage), decision.action->name, decision.probability);
    for (const FeatureWeight &feature : decision.topFeatures)
      outs() << formatv("       {0,-32} {1,+8:F4}\n", feature.name, feature.weight);
    if (!decision.alternatives.empty()) {
      outs() << "       instead of:";
      for (const ActionProbability &alternative : decision.alternatives)
        outs() << formatv(" {0} ({1:F2})", alternative.action->name, alternative.probability);
      outs() << "\n";
    }
  }
  return 0;
}

} // namespace mqss::tool
