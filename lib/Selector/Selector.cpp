//===- Selector.cpp - Per-function decisions, their application, explanations -===//
//
// Each function with a body is decided on a scratch module in which every
// other function is reduced to a private declaration, so its features are
// its own and its sequence is applied to it alone. The results are merged
// back by symbol: the first function's result is the base, each other
// function's definition replaces its declaration there, and the symbols its
// pipeline created (globals, outlined helpers) come along, renamed when they
// clash with a different definition of the same name.
//
//===----------------------------------------------------------------------===//

#include "mqss/Selector/Selector.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Diagnostics.h"
#include "mqss/IR/Summary.h"
#include "mqss/Policy/Policy.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

namespace mqss {

namespace {
using Clock = std::chrono::steady_clock;

double microsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

llvm::Error selectorError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// What one planning run observes, besides the plan.
struct PlanObserver {
  std::vector<double> *decisionMicros = nullptr;
  double *passMicros = nullptr;
  std::vector<DecisionExplanation> *explanations = nullptr;
  unsigned topK = 3;
  std::string function;
  /// Take this action at the first step instead of the policy's choice.
  const Action *forcedFirst = nullptr;
  /// A fresh copy of the module planning started from. With it, an action
  /// that fails is ruled out at that step and the policy decides again, on
  /// the module rebuilt by replaying the actions before it (a failed pass
  /// may leave the IR half rewritten). Without it, a failure is an error.
  std::function<mlir::OwningOpRef<mlir::ModuleOp>()> restart;
};

DecisionExplanation explainDecision(Policy &policy, const FeatureVector &features,
                                    const std::vector<bool> &mask, const Decision &decision,
                                    unsigned topK) {
  DecisionExplanation explanation;
  explanation.action = decision.action;
  explanation.probability = decision.probability;
  unsigned chosen = actionIndex(*decision.action);
  std::vector<float> weights = policy.attribute(features, mask, chosen);
  std::vector<unsigned> order(weights.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return std::fabs(weights[a]) > std::fabs(weights[b]);
  });
  for (unsigned i = 0; i < std::min<size_t>(topK, order.size()); ++i)
    explanation.topFeatures.push_back(
        {featureSpec()[order[i]].name.str(), weights[order[i]]});

  std::vector<unsigned> actions;
  for (unsigned i = 0; i < decision.probabilities.size(); ++i)
    if (i != chosen && decision.probabilities[i] > 0)
      actions.push_back(i);
  std::stable_sort(actions.begin(), actions.end(), [&](unsigned a, unsigned b) {
    return decision.probabilities[a] > decision.probabilities[b];
  });
  for (unsigned i = 0; i < std::min<size_t>(topK, actions.size()); ++i)
    explanation.alternatives.push_back(
        {&actionCatalog()[actions[i]], decision.probabilities[actions[i]]});
  return explanation;
}

/// The policy's view of \p module: features and legal actions. Sets the
/// context's stage; with \p summaryOut, also gives the summary they came from.
std::pair<FeatureVector, std::vector<bool>> observe(mlir::ModuleOp module,
                                                    EncoderContext &context,
                                                    IRSummary *summaryOut = nullptr) {
  IRSummary summary = summarize(module);
  context.stage = summary.stage();
  std::pair<FeatureVector, std::vector<bool>> view{
      encodeFeatures(summary, context), legalMask(summary, context.stage, context.history)};
  if (summaryOut)
    *summaryOut = std::move(summary);
  return view;
}

/// Greedy planning, applying each chosen action to \p module.
llvm::Expected<std::vector<const Action *>> plan(mlir::ModuleOp module, Policy &policy,
                                                 llvm::StringRef target, unsigned maxSteps,
                                                 const PlanObserver &observer) {
  EncoderContext context;
  context.vectorBits = targetVectorBits(target);
  context.maxSteps = maxSteps;
  std::vector<const Action *> actions;
  std::vector<const Action *> failedHere; // ruled out at this step
  unsigned failures = 0;
  for (unsigned step = 0; step < maxSteps; ++step) {
    auto start = Clock::now();
    context.step = step;
    auto [features, mask] = observe(module, context);
    for (const Action *failed : failedHere)
      mask[actionIndex(*failed)] = false;
    Decision decision = policy.decide(features, mask);
    if (step == 0 && observer.forcedFirst) {
      unsigned index = actionIndex(*observer.forcedFirst);
      if (!mask[index])
        return selectorError("action '" + observer.forcedFirst->name +
                             "' is not legal on this module");
      decision.action = observer.forcedFirst;
      decision.probability = decision.probabilities[index];
    }
    if (observer.decisionMicros)
      observer.decisionMicros->push_back(microsSince(start));
    if (observer.explanations) {
      DecisionExplanation explanation =
          explainDecision(policy, features, mask, decision, observer.topK);
      explanation.function = observer.function;
      explanation.step = step;
      explanation.stage = context.stage;
      observer.explanations->push_back(std::move(explanation));
    }
    actions.push_back(decision.action);
    context.history.push_back(decision.action);
    if (decision.action->kind == ActionKind::Finish)
      return actions;
    auto applyStart = Clock::now();
    llvm::Error error = applyAction(module, *decision.action);
    if (observer.passMicros)
      *observer.passMicros += microsSince(applyStart);
    if (!error) {
      failedHere.clear();
      continue;
    }
    bool forced = step == 0 && observer.forcedFirst;
    if (!observer.restart || forced || ++failures > kMaxFailedActions)
      return std::move(error);
    llvm::consumeError(std::move(error));
    llvm::append_range(failedHere, actionsFailingWith(*decision.action));
    actions.pop_back();
    context.history.pop_back();
    if (observer.explanations)
      observer.explanations->pop_back();
    replaceModuleContents(module, observer.restart());
    auto replayStart = Clock::now();
    for (const Action *action : actions)
      if (llvm::Error replay = applyAction(module, *action))
        return std::move(replay);
    if (observer.passMicros)
      *observer.passMicros += microsSince(replayStart);
    --step; // decide this step again
  }
  actions.push_back(lookupAction("finish-O3"));
  return actions;
}

/// The functions a selection decides for, in module order.
std::vector<mlir::func::FuncOp> definedFunctions(mlir::ModuleOp module) {
  std::vector<mlir::func::FuncOp> functions;
  for (auto function : module.getOps<mlir::func::FuncOp>())
    if (!function.isExternal())
      functions.push_back(function);
  return functions;
}

/// For a module with nothing to decide: what it holds instead, so that the
/// user learns which of their functions were passed over and why.
std::string whatIsThereInstead(mlir::ModuleOp module) {
  std::string lowered, nested, declared;
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    auto name = op.getAttrOfType<mlir::StringAttr>(mlir::SymbolTable::getSymbolAttrName());
    auto add = [&](std::string &list) {
      if (name && list.size() < 60)
        list += (list.empty() ? "@" : ", @") + name.getValue().str();
    };
    if (llvm::isa<mlir::func::FuncOp>(op)) // all external, or there would be work
      add(declared);
    else if (auto function = llvm::dyn_cast<mlir::FunctionOpInterface>(op);
             function && !function.isExternal())
      add(lowered);
    else if (auto inner = llvm::dyn_cast<mlir::ModuleOp>(op);
             inner && !definedFunctions(inner).empty())
      nested += nested.empty() ? (name ? "@" + name.getValue().str() : "<unnamed>") : ", ...";
  }
  std::string hint;
  if (!lowered.empty())
    hint += "; " + lowered + (lowered.find(',') == std::string::npos ? " is" : " are") +
            " not a func.func (already lowered, e.g. to the LLVM dialect): there is no "
            "pass pipeline left to choose";
  if (!nested.empty())
    hint += "; functions in nested module " + nested +
            " are not decided at the top level: give that module on its own, or nest the "
            "pass (builtin.module(builtin.module(mqss-select)))";
  if (!declared.empty() && hint.empty())
    hint += "; it only declares " + declared;
  return hint;
}

/// Adds the root names of the symbols \p attr refers to. References sit in
/// an op's attributes directly (func.call's callee) or inside arrays,
/// dictionaries and dialect attributes; builtin leaf attributes (numbers,
/// strings, types, maps, dense data) hold none and are not walked into.
/// SymbolTable::getSymbolUses walks everything and was most of the cost
/// of isolating a function.
void collectSymbolReferences(mlir::Attribute attr, llvm::StringSet<> &names) {
  if (auto reference = llvm::dyn_cast<mlir::SymbolRefAttr>(attr)) {
    names.insert(reference.getRootReference().getValue());
    return;
  }
  if (llvm::isa<mlir::IntegerAttr, mlir::FloatAttr, mlir::StringAttr, mlir::UnitAttr,
                mlir::TypeAttr, mlir::AffineMapAttr, mlir::IntegerSetAttr,
                mlir::DenseElementsAttr, mlir::DenseArrayAttr>(attr))
    return;
  attr.walkImmediateSubElements(
      [&](mlir::Attribute element) { collectSymbolReferences(element, names); },
      [](mlir::Type) {});
}

/// The same for the attributes of \p op. Those stored as properties are read
/// one by one: Operation::getAttrs() would build a dictionary of them.
void collectSymbolReferences(mlir::Operation *op, llvm::StringSet<> &names) {
  for (const mlir::NamedAttribute &attribute : op->getRawDictionaryAttrs())
    collectSymbolReferences(attribute.getValue(), names);
  if (!op->getPropertiesStorage())
    return;
  if (std::optional<mlir::RegisteredOperationName> info = op->getRegisteredInfo())
    for (mlir::StringAttr attributeName : info->getAttributeNames()) {
      if (attributeName.getValue().ends_with("SegmentSizes"))
        continue; // operand/result segment sizes: numbers
      if (std::optional<mlir::Attribute> value = op->getInherentAttr(attributeName))
        if (*value)
          collectSymbolReferences(*value, names);
    }
}

/// The module's top-level functions by name, built once per selection:
/// looking each reference up in the module would scan it per function.
using FunctionIndex = llvm::StringMap<mlir::func::FuncOp>;

FunctionIndex indexFunctions(mlir::ModuleOp module) {
  FunctionIndex index;
  for (auto function : module.getBody()->getOps<mlir::func::FuncOp>())
    index.try_emplace(function.getSymName(), function);
  return index;
}

/// A module like \p module holding function \p name, private declarations of
/// the functions it references, and the module's other top-level ops
/// (globals, ...). Built op by op: cloning the whole module and erasing
/// bodies would copy every other function once per function.
mlir::OwningOpRef<mlir::ModuleOp> isolateFunction(mlir::ModuleOp module,
                                                  const FunctionIndex &functions,
                                                  llvm::StringRef name) {
  mlir::OpBuilder builder(module.getContext());
  mlir::OwningOpRef<mlir::ModuleOp> copy = mlir::ModuleOp::create(module.getLoc());
  copy.get()->setAttrs(module->getAttrs());
  builder.setInsertionPointToEnd(copy->getBody());
  // Callees whose signature holds a tensor come with their bodies (and so
  // do theirs): bufferizing across function boundaries rewrites caller and
  // callee together and refuses a bodiless callee that returns a tensor.
  llvm::SmallPtrSet<mlir::Operation *, 4> withBody, declared;
  llvm::SmallVector<mlir::Operation *> worklist;
  if (mlir::func::FuncOp target = functions.lookup(name)) {
    withBody.insert(target);
    worklist.push_back(target);
  }
  while (!worklist.empty()) {
    mlir::Operation *function = worklist.pop_back_val();
    llvm::StringSet<> references;
    function->walk([&](mlir::Operation *op) { collectSymbolReferences(op, references); });
    for (const auto &reference : references) {
      mlir::func::FuncOp callee = functions.lookup(reference.getKey());
      if (!callee)
        continue;
      if (!callee.isExternal() && hasTensorSignature(callee)) {
        if (withBody.insert(callee).second)
          worklist.push_back(callee);
      } else {
        declared.insert(callee);
      }
    }
  }
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    if (!llvm::isa<mlir::func::FuncOp>(op) || withBody.contains(&op)) {
      builder.clone(op);
      continue;
    }
    if (!declared.contains(&op))
      continue;
    mlir::func::FuncOp declaration = llvm::cast<mlir::func::FuncOp>(op).cloneWithoutRegions();
    declaration.setPrivate();
    copy->getBody()->push_back(declaration);
  }
  return copy;
}

std::string printed(mlir::Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, mlir::OpPrintingFlags().useLocalScope());
  return text;
}

/// Moves function \p name, and the symbols its pipeline created, from
/// \p from into \p base (see the file comment). The module's other
/// functions (\p decided) are the base's business: their copies in \p from
/// (declarations, or callees it carried along) are left behind.
llvm::Error mergeFunction(mlir::ModuleOp base, mlir::ModuleOp from, llvm::StringRef name,
                          llvm::ArrayRef<std::string> decided) {
  mlir::SymbolTable baseSymbols(base);
  mlir::SymbolTable fromSymbols(from);
  auto definition = fromSymbols.lookup<mlir::func::FuncOp>(name);
  if (!definition)
    return selectorError("function '" + name + "' disappeared while it was optimized");
  // Clashing helper symbols are renamed in `from` first, uses included.
  for (mlir::Operation &op : llvm::make_early_inc_range(from.getBody()->getOperations())) {
    auto symbol = llvm::dyn_cast<mlir::SymbolOpInterface>(&op);
    if (!symbol || symbol.getName() == name)
      continue;
    mlir::Operation *existing = baseSymbols.lookup(symbol.getName());
    if (!existing)
      continue;
    auto function = llvm::dyn_cast<mlir::func::FuncOp>(&op);
    if ((function && (function.isExternal() || llvm::is_contained(decided, symbol.getName()))) ||
        printed(existing) == printed(&op))
      continue; // another function's declaration or copy, or the same helper
    if (mlir::failed(fromSymbols.renameToUnique(&op, {&baseSymbols})))
      return selectorError("cannot rename symbol '" + symbol.getName() + "' while merging");
  }
  for (mlir::Operation &op : from.getBody()->getOperations()) {
    auto symbol = llvm::dyn_cast<mlir::SymbolOpInterface>(&op);
    if (!symbol)
      continue;
    if (symbol.getName() == name) {
      if (mlir::Operation *declaration = baseSymbols.lookup(name))
        baseSymbols.erase(declaration);
      baseSymbols.insert(op.clone());
    } else if (!baseSymbols.lookup(symbol.getName())) {
      baseSymbols.insert(op.clone());
    }
  }
  return llvm::Error::success();
}

/// Keeps base's function order: the merged functions are moved to the
/// positions the original module had them in.
void restoreOrder(mlir::ModuleOp module, llvm::ArrayRef<std::string> order) {
  mlir::SymbolTable symbols(module);
  mlir::Operation *previous = nullptr;
  for (const std::string &name : order) {
    mlir::Operation *op = symbols.lookup(name);
    if (!op)
      continue;
    if (previous)
      op->moveAfter(previous);
    previous = op;
  }
}

/// Clones back the declarations of \p original that \p merged lacks, each
/// before the op that follows it in \p original: a function's scratch
/// module declares only what the function uses, so a declaration nothing
/// uses would otherwise vanish from the result.
void restoreDeclarations(mlir::ModuleOp merged, mlir::ModuleOp original) {
  mlir::SymbolTable symbols(merged);
  mlir::Operation *next = nullptr; // in merged, the op after the one at hand
  for (mlir::Operation &op : llvm::reverse(original.getBody()->getOperations())) {
    auto symbol = llvm::dyn_cast<mlir::SymbolOpInterface>(&op);
    if (!symbol)
      continue;
    if (mlir::Operation *present = symbols.lookup(symbol.getName())) {
      next = present;
      continue;
    }
    auto function = llvm::dyn_cast<mlir::func::FuncOp>(&op);
    if (!function || !function.isExternal())
      continue;
    mlir::Operation *copy = op.clone();
    merged.getBody()->getOperations().insert(
        next ? next->getIterator() : merged.getBody()->end(), copy);
    next = copy;
  }
}

} // namespace

llvm::Expected<std::vector<const Action *>>
planWithPolicy(mlir::ModuleOp module, Policy &policy, llvm::StringRef target,
               unsigned maxSteps, std::vector<double> *decisionMicros) {
  PlanObserver observer;
  observer.decisionMicros = decisionMicros;
  return plan(module, policy, target, maxSteps, observer);
}

bool Selection::uniform() const {
  // Pipelines, not only actions: the same actions may follow different
  // preparations (a TOSA or concat-holding function's, another's none).
  return llvm::all_of(functions, [&](const FunctionSelection &function) {
    return function.actions == functions.front().actions &&
           function.pipeline == functions.front().pipeline;
  });
}

std::string Selection::describe() const {
  if (uniform())
    return functions.empty() ? "" : functions.front().pipeline;
  std::string text;
  for (const FunctionSelection &function : functions)
    text += (text.empty() ? "@" : " | @") + function.name + ": " + function.pipeline;
  return text;
}

Selector::Selector(SelectorOptions options, std::unique_ptr<Policy> policy)
    : opts(std::move(options)), policyImpl(std::move(policy)) {}
Selector::~Selector() = default;

std::string Selector::modelPath() const {
  return opts.modelPath.empty() ? defaultModelPath() : opts.modelPath;
}

llvm::Expected<std::unique_ptr<Selector>> Selector::create(const SelectorOptions &options) {
  if (auto target = resolveTarget(options.target); !target)
    return target.takeError();
  if (options.maxSteps == 0)
    return selectorError("max-steps must be at least 1");
  SelectorOptions resolved = options;
  if (resolved.modelPath.empty())
    resolved.modelPath = defaultModelPath();
  auto policy = loadPolicy(resolved.modelPath);
  if (!policy)
    return policy.takeError();
  return std::unique_ptr<Selector>(new Selector(std::move(resolved), std::move(*policy)));
}

llvm::Expected<Selection>
Selector::decide(mlir::ModuleOp module, std::vector<mlir::OwningOpRef<mlir::ModuleOp>> *results,
                 std::vector<DecisionExplanation> *explanations, unsigned topK) {
  std::vector<mlir::func::FuncOp> functions = definedFunctions(module);
  if (functions.empty())
    return selectorError("the module has no function with a body to optimize" +
                         whatIsThereInstead(module));
  if (std::string refusal = refusalReason(module); !refusal.empty())
    return selectorError(refusal);
  Selection selection;
  FunctionIndex index = indexFunctions(module);
  for (mlir::func::FuncOp function : functions) {
    FunctionSelection decided;
    decided.name = function.getSymName().str();
    PlanObserver observer;
    observer.decisionMicros = &decided.decisionMicros;
    observer.passMicros = &selection.passMicros;
    observer.explanations = explanations;
    observer.topK = topK;
    observer.function = decided.name;
    // A module with one function needs no isolating copy beyond the scratch.
    auto isolate = [&, single = functions.size() == 1, name = decided.name] {
      if (!single)
        return isolateFunction(module, index, name);
      mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
      eraseUnusedTensorDeclarations(*copy); // restored by install()
      return copy;
    };
    // A frontend's dialect (TOSA) and ops MLIR 19 cannot bufferize
    // (tensor.concat) are dealt with before the first decision, and the
    // function's pipeline begins with what did it.
    mlir::OwningOpRef<mlir::ModuleOp> scratch = isolate();
    auto preparation = prepareForStages(*scratch);
    if (!preparation)
      return selectorError("@" + decided.name + ": " + llvm::toString(preparation.takeError()));
    observer.restart = [isolate] {
      mlir::OwningOpRef<mlir::ModuleOp> again = isolate();
      // It prepared this same IR a moment ago; were it to fail now, the
      // replayed actions would fail on the unprepared IR and say so.
      llvm::consumeError(prepareForStages(*again).takeError());
      return again;
    };
    auto inScratch = scratch->lookupSymbol<mlir::func::FuncOp>(decided.name);
    std::string belowRange = inScratch ? belowTrainingRange(inScratch) : "";
    if (!belowRange.empty()) {
      decided.chosen = "default";
      decided.note = belowRange;
    }
    std::vector<std::string> leftOut; // default's actions that failed here
    auto actions = belowRange.empty()
                       ? plan(*scratch, *policyImpl, opts.target, opts.maxSteps, observer)
                       : planDefault(*scratch, &leftOut);
    for (const std::string &why : leftOut)
      decided.note += "; " + why;
    if (actions && !belowRange.empty())
      actions->push_back(lookupAction("finish-O3")); // as the policy's plans end
    if (!actions)
      return selectorError("@" + decided.name + ": " + llvm::toString(actions.takeError()));
    decided.actions = std::move(*actions);
    auto pipeline = pipelineForActions(decided.actions);
    if (!pipeline)
      return pipeline.takeError();
    decided.pipeline = joinAfterPreparation(*preparation, *pipeline);
    for (double us : decided.decisionMicros)
      selection.decisionMicros += us;
    selection.functions.push_back(std::move(decided));
    if (results)
      results->push_back(std::move(scratch));
  }
  if (llvm::all_of(selection.functions,
                   [](const FunctionSelection &f) { return f.chosen == "default"; }))
    selection.chosen = "default";
  return selection;
}

std::string Selector::belowTrainingRange(mlir::func::FuncOp function) const {
  const ModelMetadata &model = policyImpl->metadata();
  if (!opts.deferBelowTrainingRange || !model.minTrainedLog2Ops)
    return "";
  // Large kernels, the usual case, stop the count early.
  double threshold = std::exp2(*model.minTrainedLog2Ops - 1);
  std::optional<double> ops = executedOps(function, threshold);
  if (!ops || *ops <= 0)
    return ""; // not known statically: the policy decides
  if (*ops >= threshold)
    return "";
  double log2Ops = std::log2(*ops);
  return llvm::formatv("executes about 2^{0:F1} ops per call, under half the smallest "
                       "kernel the model was trained on (2^{1:F1}): `default`'s plan "
                       "instead of the policy's",
                       log2Ops, *model.minTrainedLog2Ops)
      .str();
}

std::string Selector::belowTrainingRange(mlir::ModuleOp module) const {
  std::string first;
  for (mlir::func::FuncOp function : definedFunctions(module)) {
    std::string reason = belowTrainingRange(function);
    if (reason.empty())
      return "";
    if (first.empty())
      first = "@" + function.getSymName().str() + " " + reason;
  }
  return first;
}

llvm::Expected<NextDecision> Selector::next(mlir::ModuleOp module,
                                            llvm::ArrayRef<const Action *> history) {
  auto start = Clock::now();
  if (std::string refusal = refusalReason(module); !refusal.empty())
    return selectorError(refusal);
  EncoderContext context;
  context.vectorBits = targetVectorBits(opts.target);
  context.maxSteps = opts.maxSteps;
  context.step = history.size();
  context.history.assign(history.begin(), history.end());
  IRSummary summary;
  auto [features, mask] = observe(module, context, &summary);
  NextDecision next;
  next.stage = context.stage;
  next.features = features;
  // Nothing is applied here, so the check applyAction would make before an
  // action with a precondition is made now: the caller runs the pass itself.
  auto refused = [&](const Action &action) {
    if (!action.precondition)
      return false;
    llvm::Error error = action.precondition(module);
    bool failed = static_cast<bool>(error);
    llvm::consumeError(std::move(error));
    return failed;
  };
  std::string belowRange = belowTrainingRange(module);
  if (belowRange.empty()) {
    Decision decision = policyImpl->decide(features, mask);
    while (refused(*decision.action)) {
      for (const Action *sibling : actionsFailingWith(*decision.action))
        mask[actionIndex(*sibling)] = false;
      decision = policyImpl->decide(features, mask);
    }
    next.action = decision.action;
    next.probability = decision.probability;
  } else {
    // select() plans `default` here: its next action is the list's step on
    // this IR, as planSequence takes it (the stage's mask, no history).
    const Action *action =
        firstPreference(defaultSequence(), legalMask(summary, summary.stage()),
                        [&](const Action *a) {
                          return llvm::is_contained(history, a) || refused(*a);
                        });
    next.action = action ? action : lookupAction("finish-O3");
    next.probability = 1;
    next.chosen = "default";
    next.note = belowRange;
  }
  next.decisionMicros = microsSince(start);
  return next;
}

llvm::Expected<Selection> Selector::select(mlir::ModuleOp module) {
  return decide(module, nullptr, nullptr, 3);
}

llvm::Expected<std::vector<DecisionExplanation>>
Selector::explain(mlir::ModuleOp module, unsigned topK, std::vector<std::string> *notes) {
  std::vector<DecisionExplanation> explanations;
  auto selection = decide(module, nullptr, &explanations, topK);
  if (!selection)
    return selection.takeError();
  if (notes)
    for (const FunctionSelection &function : selection->functions)
      if (!function.note.empty())
        notes->push_back("@" + function.name + ": " + function.note);
  return explanations;
}

llvm::Error Selector::install(mlir::ModuleOp module,
                              std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results,
                              Selection &selection) {
  if (results.size() == 1) {
    restoreDeclarations(*results.front(), module);
    replaceModuleContents(module, std::move(results.front()));
    return llvm::Error::success();
  }
  std::vector<std::string> order;
  for (const FunctionSelection &function : selection.functions)
    order.push_back(function.name);
  mlir::OwningOpRef<mlir::ModuleOp> merged = std::move(results.front());
  for (size_t i = 1; i < results.size(); ++i)
    if (llvm::Error error = mergeFunction(*merged, *results[i], order[i], order))
      return error;
  restoreOrder(*merged, order);
  restoreDeclarations(*merged, module);
  bool fits;
  {
    // Its complaint is about our merge, not the user's IR: handled below.
    DiagnosticCollector quiet(*module.getContext());
    fits = mlir::succeeded(mlir::verify(*merged));
  }
  if (fits) {
    replaceModuleContents(module, std::move(merged));
    return llvm::Error::success();
  }
  // The functions' results do not fit together (e.g. one left on tensors
  // while its callee was bufferized): one sequence for all of them.
  FunctionSelection &first = selection.functions.front();
  if (llvm::Error error = applyPipeline(module, first.pipeline))
    return error;
  for (FunctionSelection &function : selection.functions) {
    function.actions = first.actions;
    function.pipeline = first.pipeline;
  }
  return llvm::Error::success();
}

llvm::Error Selector::apply(mlir::ModuleOp module, Selection &selection) {
  if (selection.functions.empty())
    return selectorError("the selection is empty");
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results;
  if (selection.uniform()) {
    mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
    eraseUnusedTensorDeclarations(*copy);
    if (llvm::Error error = applyPipeline(*copy, selection.functions.front().pipeline))
      return error;
    results.push_back(std::move(copy));
    return install(module, std::move(results), selection);
  }
  FunctionIndex index = indexFunctions(module);
  for (const FunctionSelection &function : selection.functions) {
    mlir::OwningOpRef<mlir::ModuleOp> copy = isolateFunction(module, index, function.name);
    if (llvm::Error error = applyPipeline(*copy, function.pipeline))
      return selectorError("@" + function.name + ": " + llvm::toString(std::move(error)));
    results.push_back(std::move(copy));
  }
  return install(module, std::move(results), selection);
}

llvm::Expected<Selection> Selector::optimize(mlir::ModuleOp module) {
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results;
  auto selection = decide(module, &results, nullptr, 3);
  if (!selection)
    return selection.takeError();
  if (llvm::Error error = install(module, std::move(results), *selection))
    return std::move(error);
  return selection;
}

} // namespace mqss
