//===- ActionsCommand.cpp - `mqss actions` and `mqss apply` ----------------===//

#include "Commands.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Catalog.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Signature.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Harness.h"
#include "mqss/Runtime/Pipeline.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace mqss::tool {

//===----------------------------------------------------------------------===//
// mqss actions
//===----------------------------------------------------------------------===//

cl::SubCommand actionsCommand("actions",
                              "List the action catalog: every action, its stage and "
                              "what it runs");
static cl::opt<std::string> listStage("stage",
                                      cl::desc("Only this stage: tensor, linalg, loops, finish"),
                                      cl::sub(actionsCommand), cl::cat(category()));
static cl::opt<bool> listJson("json", cl::desc("Print JSON"), cl::sub(actionsCommand),
                              cl::cat(category()));

int actionsMain() {
  std::optional<Stage> stage;
  if (!listStage.empty()) {
    stage = parseStage(listStage);
    if (!stage) {
      WithColor::error(errs(), "mqss actions")
          << "unknown stage '" << listStage << "' (known: tensor, linalg, loops, finish)\n";
      return 2;
    }
  }
  json::Array array;
  // The name column fits the longest name, with two spaces after it.
  size_t nameWidth = 0;
  for (const Action &action : actionCatalog())
    nameWidth = std::max(nameWidth, action.name.size() + 2);
  std::string nameColumn = "{0,-" + std::to_string(nameWidth) + "}";
  std::string header = nameColumn + "{1,-8}{2,-10}{3}\n";
  std::string row = header + "{4," + std::to_string(nameWidth + 18) + "}{5}\n";
  if (!listJson)
    outs() << formatv(header.c_str(), "action", "stage", "category", "pipeline / description");
  for (const Action &action : actionCatalog()) {
    if (stage && action.stage != *stage)
      continue;
    auto pipeline = pipelineForActions({&action});
    std::string text = pipeline ? *pipeline : toString(pipeline.takeError());
    if (listJson) {
      json::Object object{{"name", action.name},
                          {"stage", stageName(action.stage)},
                          {"category", actionCategoryName(action.category)},
                          {"pipeline", text},
                          {"description", action.doc},
                          {"index", actionIndex(action)}};
      if (action.kind == ActionKind::Schedule)
        object["schedule"] = action.body;
      if (action.kind == ActionKind::Finish)
        object["llvm_opt_level"] = action.llvmOptLevel;
      array.push_back(std::move(object));
      continue;
    }
    std::string shown = action.kind == ActionKind::Pass
                            ? action.body.str()
                            : action.kind == ActionKind::Schedule
                                  ? "schedule " + action.body.str()
                                  : formatv("LLVM -O{0}", action.llvmOptLevel).str();
    outs() << formatv(row.c_str(), action.name,
                      stageName(action.stage), actionCategoryName(action.category),
                      shown, "", action.doc);
  }
  if (listJson)
    outs() << formatv("{0:2}", json::Value(std::move(array))) << "\n";
  return 0;
}

//===----------------------------------------------------------------------===//
// mqss apply
//===----------------------------------------------------------------------===//

cl::SubCommand applyCommand("apply",
                            "Apply a sequence of actions (verifying after each) and print "
                            "the IR, or measure the sequence with the harness");
static cl::opt<std::string> applyInput(cl::Positional, cl::Required, cl::desc("<kernel.mlir>"),
                                       cl::sub(applyCommand), cl::cat(category()));
static cl::opt<std::string> applyActions(
    "actions", cl::desc("Comma-separated action names, or default / expert:<family>"),
    cl::Required, cl::sub(applyCommand), cl::cat(category()));
static cl::opt<std::string> applyEmit("emit", cl::desc("mlir (default), pipeline or run"),
                                      cl::init("mlir"), cl::sub(applyCommand),
                                      cl::cat(category()));
static cl::opt<std::string> applyOutput("o", cl::desc("Output file (default: stdout)"),
                                        cl::init("-"), cl::sub(applyCommand),
                                        cl::cat(category()));
static cl::opt<std::string> applyBaseline("baseline",
                                          cl::desc("With --emit=run: the pipeline to compare with"),
                                          cl::sub(applyCommand), cl::cat(category()));
static cl::opt<std::string> applyTarget("target", cl::desc("With --emit=run: the target"),
                                        cl::init("host"), cl::sub(applyCommand),
                                        cl::cat(category()));
static cl::opt<std::string> applyEntry("entry", cl::desc("With --emit=run: the entry"),
                                       cl::sub(applyCommand), cl::cat(category()));
static cl::list<std::string> applyShapes("shape", cl::desc("With --emit=run: argN=D0x..."),
                                         cl::sub(applyCommand), cl::cat(category()));
static cl::list<std::string> applyArgs("arg", cl::desc("With --emit=run: argN=V"),
                                       cl::sub(applyCommand), cl::cat(category()));
static cl::opt<bool> applyJson("json", cl::desc("With --emit=run: print JSON"),
                               cl::sub(applyCommand), cl::cat(category()));
static cl::opt<bool> applyAllowUnregistered(
    "allow-unregistered-dialect",
    cl::desc("Accept ops of dialects MLIR does not know (as mlir-opt's flag of that name; not "
             "with --emit=run, as they have no lowering); passes treat them conservatively"),
    cl::sub(applyCommand), cl::cat(category()));

static int applyError(const Twine &message) {
  WithColor::error(errs(), "mqss apply") << message << "\n";
  return 1;
}

int applyMain() {
  if (applyEmit != "mlir" && applyEmit != "pipeline" && applyEmit != "run")
    return applyError("--emit must be mlir, pipeline or run");

  std::string spec = applyActions;
  if (!isNamedPipeline(spec))
    spec = "actions:" + spec;
  if (Error error = validateNamedPipeline(spec))
    return applyError(toString(std::move(error)));

  if (applyEmit == "run" && applyAllowUnregistered)
    return applyError("--allow-unregistered-dialect cannot go with --emit=run: ops of an "
                      "unregistered dialect have no lowering to LLVM");
  if (applyEmit == "run") {
    RunRequest request;
    std::optional<TemporaryFile> stdinCopy;
    auto path = measurableInput(applyInput, stdinCopy);
    if (!path)
      return applyError(toString(path.takeError()));
    request.inputPath = *path;
    request.pipeline = spec;
    if (!applyBaseline.empty())
      request.baseline = applyBaseline;
    request.target = applyTarget;
    request.entry = applyEntry;
    for (const std::string &text : applyShapes)
      if (Error error = parseShapeOption(text, request.inputs.shapes))
        return applyError(toString(std::move(error)));
    for (const std::string &text : applyArgs)
      if (Error error = parseScalarOption(text, request.inputs.scalars))
        return applyError(toString(std::move(error)));
    useNamedPipelines(request);
    RunReport report = runMeasurement(request);
    if (stdinCopy)
      report.file = "<stdin>";
    if (applyJson)
      outs() << formatv("{0:2}", toJSON(report)) << "\n";
    else
      printReport(report, outs());
    return report.ok() ? 0 : 1;
  }

  auto context = createContext();
  context->allowUnregisteredDialects(applyAllowUnregistered);
  registerPasses();
  auto module = loadModuleFile(*context, applyInput);
  if (!module)
    return reportLoadError("mqss apply", module.takeError(), /*json=*/false);
  std::vector<const Action *> actions;
  std::string preparation;
  llvm::StringRef rest = spec;
  if (rest.consume_front("actions:")) {
    actions = std::move(*parseActionList(rest));
    // As `mqss select`, the harness and --emit=run do: elementwise ops on
    // whole tensors as linalg, TOSA lowered, ops MLIR 19 cannot bufferize
    // rewritten.
    auto prepared = prepareForStages(**module);
    if (!prepared)
      return applyError("preparing the module: " + toString(prepared.takeError()));
    preparation = std::move(*prepared);
    if (!preparation.empty())
      WithColor::note(errs(), "mqss apply")
          << "the actions run after this preparation, as in `mqss select`'s pipelines: "
          << preparation << "\n";
    for (const Action *action : actions) {
      // Apply step by step so a failure names the action that failed.
      IRSummary summary = summarize(**module);
      if (action->stage != Stage::Finish && action->stage != summary.stage())
        WithColor::warning(errs(), "mqss apply")
            << "action " << action->name << " belongs to the " << stageName(action->stage)
            << " stage, but the module is at the " << stageName(summary.stage()) << " stage\n";
      bool unsafe = false;
      std::string why = illegalBecause(*action, summary, &unsafe);
      if (unsafe)
        return applyError("action " + action->name + " refused: " + why);
      if (!why.empty())
        WithColor::warning(errs(), "mqss apply")
            << "action " << action->name << ": " << why << "; it may do nothing\n";
      if (Error error = applyAction(**module, *action))
        return applyError(describeActionError(*action, std::move(error)));
    }
  } else {
    std::vector<std::string> leftOut; // what the plan passed over, and why
    auto resolved = resolveNamedPipeline(**module, spec, nullptr, &leftOut);
    if (!resolved)
      return applyError(toString(resolved.takeError()));
    for (const std::string &note : leftOut)
      WithColor::note(errs(), "mqss apply") << note << "\n";
    if (Error error = applyPipeline(**module, *resolved))
      return applyError(toString(std::move(error)));
    if (applyEmit == "pipeline") {
      outs() << *resolved << "\n";
      return 0;
    }
  }
  if (applyEmit == "pipeline") {
    auto pipeline = pipelineForActions(actions);
    if (!pipeline)
      return applyError(toString(pipeline.takeError()));
    outs() << joinAfterPreparation(preparation, *pipeline) << "\n";
    return 0;
  }
  std::error_code ec;
  ToolOutputFile out(applyOutput, ec, sys::fs::OF_Text);
  if (ec)
    return applyError("cannot write '" + applyOutput + "': " + ec.message());
  (*module)->print(out.os());
  out.os() << "\n";
  return finishOutput(out, applyOutput, "mqss apply") ? 0 : 1;
}

} // namespace mqss::tool
