//===- FeaturesCommand.cpp - `mqss features`: what the policy sees ---------===//

#include "Commands.h"

#include "mqss/Actions/Sequence.h"
#include "mqss/Features/Encoder.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/Runtime/Target.h"
#include "mqss/Selector/Selector.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace mqss::tool {

cl::SubCommand featuresCommand("features",
                               "Print the state encoder's features of a module: "
                               "structural, statistical and contextual");
static cl::opt<std::string> input(cl::Positional, cl::Required, cl::desc("<kernel.mlir>"),
                                  cl::sub(featuresCommand), cl::cat(category()));
static cl::opt<std::string> target("target", cl::desc("Target for the contextual features"),
                                   cl::init("host"), cl::sub(featuresCommand),
                                   cl::cat(category()));
static cl::opt<std::string> history(
    "actions",
    cl::desc("Actions already taken: applied first (after the preparation `mqss select` "
             "runs), and seen as history"),
    cl::sub(featuresCommand), cl::cat(category()));
static cl::opt<bool> json("json", cl::desc("Print JSON"), cl::sub(featuresCommand),
                          cl::cat(category()));
static cl::opt<bool> allowUnregistered(
    "allow-unregistered-dialect",
    cl::desc("Accept ops of dialects MLIR does not know (as mlir-opt's flag of that name); "
             "they count as ops of no known kind"),
    cl::sub(featuresCommand), cl::cat(category()));

static int featuresError(const Twine &message) {
  return reportError("mqss features", message, json, 1);
}

int featuresMain() {
  // Bad options: exit code 2, as `mqss run` gives it.
  if (auto resolved = resolveTarget(target, TargetUse::Compile); !resolved)
    return reportError("mqss features", toString(resolved.takeError()), json, 2);
  auto actions = parseActionList(history);
  if (!actions)
    return reportError("mqss features", toString(actions.takeError()), json, 2);

  auto context = createContext();
  context->allowUnregisteredDialects(allowUnregistered);
  registerPasses();
  auto module = loadModuleFile(*context, input);
  if (!module)
    return reportLoadError("mqss features", module.takeError(), json);
  // As `mqss select`: an empty module, or one of declarations only, has no
  // features the policy would see.
  if (Error error = checkSelectable(**module))
    return featuresError(toString(std::move(error)));
  // The module as the policy sees it, as `mqss select` and `explain`
  // prepare it: TOSA lowered, elementwise ops on tensors as linalg, ops
  // MLIR 19 cannot bufferize rewritten.
  auto preparation = prepareForStages(**module);
  if (!preparation)
    return featuresError("preparing the module: " + toString(preparation.takeError()));
  if (!preparation->empty())
    WithColor::note(errs(), "mqss features")
        << "the features of the module after this preparation, as the policy sees it: "
        << *preparation << "\n";
  for (const Action *action : *actions)
    if (Error error = applyAction(**module, *action))
      return featuresError("action " + action->name + ": " + toString(std::move(error)));

  IRSummary summary = summarize(**module);
  EncoderContext encoder;
  encoder.stage = summary.stage();
  encoder.vectorBits = targetVectorBits(target);
  encoder.step = actions->size();
  encoder.history = *actions;
  FeatureVector features = encodeFeatures(summary, encoder);

  std::string hash = formatv("{0:x16}", featureSpecHash()).str();
  if (json) {
    json::Object values;
    for (auto [info, value] : llvm::zip(featureSpec(), features))
      values[info.name] = static_cast<double>(value);
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"spec_hash", hash},
                                   {"num_features", kNumFeatures},
                                   {"stage", stageName(encoder.stage)},
                                   {"target", target},
                                   {"features", std::move(values)}}))
           << "\n";
    return 0;
  }
  outs() << formatv("{0} at the {1} stage, target {2}; feature spec {3} ({4} features)\n",
                    input, stageName(encoder.stage), target, hash, kNumFeatures);
  for (auto [info, value] : llvm::zip(featureSpec(), features))
    outs() << formatv("  {0,-12}{1,-28}{2,8:f4}\n", featureGroupName(info.group), info.name,
                      value);
  return 0;
}

} // namespace mqss::tool
