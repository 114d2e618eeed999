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
#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Signature.h"
#include "mqss/IR/SourceLayout.h"
#include "mqss/IR/Summary.h"
#include "mqss/Policy/Model.h"
#include "mqss/Policy/Policy.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <condition_variable>
#include <functional>
#include <thread>

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
    // A refused action (its precondition does not hold) left the module as
    // it was, and is decided again without it: the policy may propose it
    // after every step, so refusals neither count as failures nor need a
    // rebuild. A failed pass may have left the module half rewritten.
    bool forced = step == 0 && observer.forcedFirst;
    bool untouched = error.isA<ActionRefused>();
    if (forced || (!untouched && (!observer.restart || ++failures > kMaxFailedActions)))
      return std::move(error);
    llvm::consumeError(std::move(error));
    llvm::append_range(failedHere, actionsFailingWith(*decision.action));
    actions.pop_back();
    context.history.pop_back();
    if (observer.explanations)
      observer.explanations->pop_back();
    if (untouched) {
      --step; // decide this step again
      continue;
    }
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
  std::string lowered, declared, scripts;
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    auto name = op.getAttrOfType<mlir::StringAttr>(mlir::SymbolTable::getSymbolAttrName());
    auto add = [&](std::string &list) {
      if (name && list.size() < 60)
        list += (list.empty() ? "@" : ", @") + name.getValue().str();
    };
    if (llvm::isa<mlir::func::FuncOp>(op)) // all external, or there would be work
      add(declared);
    else if (op.getDialect() && op.getDialect()->getNamespace() == "transform")
      add(scripts);
    else if (auto function = llvm::dyn_cast<mlir::FunctionOpInterface>(op);
             function && !function.isExternal())
      add(lowered);
  }
  std::vector<std::string> modules = nestedModulesWithFunctions(module);
  std::string nested =
      modules.empty() ? "" : modules.front() + (modules.size() > 1 ? ", ..." : "");
  std::string hint;
  if (!scripts.empty())
    hint += "; " + scripts + (scripts.find(',') == std::string::npos ? " is" : " are") +
            " part of a transform-dialect script, not a kernel: mqss chooses passes for the "
            "func.func definitions of payload IR, and this module holds none";
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
/// (globals, ...) but its nested payload modules. Built op by op: cloning
/// the whole module and erasing bodies would copy every other function
/// once per function.
///
/// With \p take, the function itself is moved into the copy and a
/// declaration takes its place in \p module (and in \p functions): for a
/// module nobody needs afterwards. Only a function whose signature holds
/// no tensor may be taken, since others' copies need such a one's body.
mlir::OwningOpRef<mlir::ModuleOp> isolateFunction(mlir::ModuleOp module,
                                                  FunctionIndex &functions,
                                                  llvm::StringRef name, bool take = false) {
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
  std::vector<mlir::ModuleOp> nested = nestedPayloadModules(module);
  for (mlir::Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations())) {
    if (auto inner = llvm::dyn_cast<mlir::ModuleOp>(op); inner && llvm::is_contained(nested, inner))
      continue;
    if (take && withBody.contains(&op) && functions.lookup(name) == &op) {
      mlir::func::FuncOp declaration = llvm::cast<mlir::func::FuncOp>(op).cloneWithoutRegions();
      module.getBody()->getOperations().insert(op.getIterator(), declaration);
      functions[name] = declaration;
      op.moveBefore(copy->getBody(), copy->getBody()->end());
      continue;
    }
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

/// \p op as text, printed from a detached copy: in place, an op that is not
/// isolated from above (a memref.global) made the printer number and verify
/// the whole module, so merging N functions' globals took O(N^2) (1,600
/// functions: 28 s, against 1.2 s for the pipelines alone).
std::string printed(mlir::Operation *op) {
  mlir::Operation *copy = op->clone();
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, mlir::OpPrintingFlags().useLocalScope().assumeVerified());
  copy->destroy();
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

/// Puts \p merged's ops in the order that running one pipeline on the whole
/// of \p original gives, which is what mlir-opt prints for a printed
/// pipeline: the symbols passes created (bufferization's memref.global
/// constants) first, as bufferization inserts them, then the original
/// module's symbols in its order. Anything else stays after them.
void restoreModuleOrder(mlir::ModuleOp merged, mlir::ModuleOp original) {
  mlir::SymbolTable originalSymbols(original);
  mlir::SymbolTable mergedSymbols(merged);
  llvm::SmallVector<mlir::Operation *> ordered;
  for (mlir::Operation &op : merged.getBody()->getOperations())
    if (auto symbol = llvm::dyn_cast<mlir::SymbolOpInterface>(&op);
        symbol && !originalSymbols.lookup(symbol.getName()))
      ordered.push_back(&op);
  for (mlir::Operation &op : original.getBody()->getOperations())
    if (auto symbol = llvm::dyn_cast<mlir::SymbolOpInterface>(&op))
      if (mlir::Operation *present = mergedSymbols.lookup(symbol.getName()))
        ordered.push_back(present);
  mlir::Block *body = merged.getBody();
  mlir::Operation *previous = nullptr;
  for (mlir::Operation *op : ordered) {
    if (previous)
      op->moveAfter(previous);
    else
      op->moveBefore(body, body->begin());
    previous = op;
  }
}

/// Clones back the declarations and the nested payload modules of
/// \p original that \p merged lacks, each before the op that follows it in
/// \p original: a function's scratch module declares only what the function
/// uses and holds no nested module (stripToTopLevelPayload), so these would
/// otherwise vanish from the result.
void restoreStripped(mlir::ModuleOp merged, mlir::ModuleOp original) {
  mlir::SymbolTable symbols(merged);
  std::vector<mlir::ModuleOp> nested = nestedPayloadModules(original);
  mlir::Operation *next = nullptr; // in merged, the op after the one at hand
  for (mlir::Operation &op : llvm::reverse(original.getBody()->getOperations())) {
    auto inner = llvm::dyn_cast<mlir::ModuleOp>(op);
    if (!inner || !llvm::is_contained(nested, inner)) {
      auto symbol = llvm::dyn_cast<mlir::SymbolOpInterface>(&op);
      if (!symbol || !symbol.getNameAttr())
        continue;
      if (mlir::Operation *present = symbols.lookup(symbol.getName())) {
        next = present;
        continue;
      }
      auto function = llvm::dyn_cast<mlir::func::FuncOp>(&op);
      if (!function || !function.isExternal())
        continue;
    }
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

/// Whether the uniform pipeline bufferizes across function boundaries.
static bool bufferizesAcrossFunctions(const Selection &selection) {
  return selection.uniform() && !selection.functions.empty() &&
         llvm::StringRef(selection.functions.front().pipeline)
             .contains("bufferize-function-boundaries");
}

static bool runsAnyPass(const Selection &selection) {
  return llvm::any_of(selection.functions,
                      [](const FunctionSelection &f) { return !f.pipeline.empty(); });
}

bool Selection::mayNeedPastingNote(llvm::StringRef source) const {
  // The func dialect's verifier allows declarations only private; a
  // transform op's name (text), or its dialect's (bytecode), says "transform".
  return (bufferizesAcrossFunctions(*this) && source.contains("private")) ||
         (runsAnyPass(*this) && source.contains("transform"));
}

std::string Selection::pastingNote(mlir::ModuleOp module) const {
  std::vector<std::string> notes;
  if (bufferizesAcrossFunctions(*this)) {
    std::string names;
    for (mlir::func::FuncOp function : unusedTensorDeclarations(module))
      names += (names.empty() ? "@" : ", @") + function.getSymName().str();
    if (!names.empty())
      notes.push_back(
          "the pipeline bufferizes across function boundaries, which MLIR 19 refuses while "
          "the module declares " + names + " (unused, returning a tensor): mqss plans "
          "without such declarations; to paste the pipeline into mlir-opt, remove them "
          "first (symbol-dce does)");
  }
  if (runsAnyPass(*this) && llvm::any_of(module.getBody()->getOperations(), isTransformScript))
    notes.push_back("the module holds a transform script, which mqss sets aside while the "
                    "passes run and keeps as written (--emit=mlir); pasted into mlir-opt, the "
                    "pipeline runs on the script too (canonicalize erases its ops whose "
                    "results go unused): to keep it, take it out of the module first");
  return llvm::join(notes, "\n");
}

/// selectSource()'s helper threads, started with the selector and kept: a
/// thread started per call cost about 0.1 ms here (the binary's
/// thread-local storage is large) and began with cold per-thread caches
/// (the summary's op classes, malloc's). Each has its own MLIRContext,
/// made on the thread, and renewed on request (a context keeps all it
/// ever uniqued).
class HelperThreads {
public:
  explicit HelperThreads(unsigned count) {
    for (unsigned h = 0; h < count; ++h)
      helpers.push_back(std::make_unique<Helper>());
    for (auto &helper : helpers)
      helper->thread = std::thread([this, &helper = *helper] { serve(helper); });
  }
  ~HelperThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (auto &helper : helpers)
      helper->thread.join();
  }
  unsigned size() const { return helpers.size(); }
  /// Gives \p task to helper \p h, which runs it with its context.
  void run(unsigned h, std::function<void(mlir::MLIRContext &)> task) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      helpers[h]->task = std::move(task);
    }
    wake.notify_all();
  }
  /// Waits until every task given is done.
  void wait() {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] {
      return llvm::all_of(helpers, [](const auto &helper) { return !helper->task; });
    });
  }
  /// Each helper makes a fresh context before its next task.
  void renewContexts() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &helper : helpers)
      helper->renew = true;
  }

private:
  struct Helper {
    std::thread thread;
    std::function<void(mlir::MLIRContext &)> task; ///< empty when idle
    bool renew = false;
  };
  void serve(Helper &helper) {
    std::unique_ptr<mlir::MLIRContext> context = createContext();
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return stopping || helper.task; });
      if (stopping)
        return;
      bool renew = std::exchange(helper.renew, false);
      lock.unlock();
      if (renew)
        context = createContext();
      helper.task(*context); // only this thread touches it until it is cleared
      lock.lock();
      helper.task = nullptr;
      done.notify_all();
    }
  }
  std::vector<std::unique_ptr<Helper>> helpers;
  std::mutex mutex;
  std::condition_variable wake, done;
  bool stopping = false;
};

Selector::Selector(SelectorOptions options, std::unique_ptr<Policy> policy)
    : opts(std::move(options)), policyImpl(std::move(policy)) {
  if (opts.threads > 1)
    helpers = std::make_unique<HelperThreads>(opts.threads - 1);
}
Selector::~Selector() = default;

std::string Selector::modelPath() const {
  return opts.modelPath.empty() ? defaultModelPath() : opts.modelPath;
}

llvm::Expected<std::unique_ptr<Selector>> Selector::create(const SelectorOptions &options) {
  // Deciding needs no code to run here; the measured guard's harness checks
  // that the host can run the target.
  if (auto target = resolveTarget(options.target, TargetUse::Compile); !target)
    return target.takeError();
  if (options.maxSteps == 0)
    return selectorError("max-steps must be at least 1");
  // (100,000 grew to 3.6 GB of contexts, then aborted the process.)
  if (options.threads > kMaxSelectorThreads)
    return selectorError("threads must be at most " + std::to_string(kMaxSelectorThreads));
  SelectorOptions resolved = options;
  if (resolved.modelPath.empty())
    resolved.modelPath = defaultModelPath();
  if (options.model)
    return std::unique_ptr<Selector>(new Selector(
        std::move(resolved), createModelPolicy(options.model->weights, options.model->metadata)));
  auto policy = loadPolicy(resolved.modelPath);
  if (!policy) {
    // A path no option gave: say where it came from.
    const char *fromEnvironment = std::getenv("MQSS_MODEL");
    if (options.modelPath.empty() && fromEnvironment && *fromEnvironment)
      return selectorError(llvm::toString(policy.takeError()) + " (the path is $MQSS_MODEL's)");
    return policy.takeError();
  }
  return std::unique_ptr<Selector>(new Selector(std::move(resolved), std::move(*policy)));
}

/// The scratch modules decide() plans function \p name of \p module on:
/// copies of the function, or of the whole module when it is the \p only
/// function with a body (no isolating copy is needed beyond the scratch).
static Selector::Scratch copiedScratch(mlir::ModuleOp module, FunctionIndex &index,
                                       llvm::StringRef name, bool single) {
  auto copy = [&index, module, single, name = name.str()]() mutable {
    if (!single)
      return isolateFunction(module, index, name);
    mlir::OwningOpRef<mlir::ModuleOp> whole = module.clone();
    stripToTopLevelPayload(*whole); // restored by install()
    return whole;
  };
  return {copy, copy};
}

llvm::Expected<FunctionSelection>
Selector::decideFunction(llvm::StringRef name, const Scratch &source, double &passMicros,
                         std::vector<DecisionExplanation> *explanations, unsigned topK,
                         mlir::OwningOpRef<mlir::ModuleOp> *scratchOut) {
  FunctionSelection decided;
  decided.name = name.str();
  PlanObserver observer;
  observer.decisionMicros = &decided.decisionMicros;
  observer.passMicros = &passMicros;
  observer.explanations = explanations;
  observer.topK = topK;
  observer.function = decided.name;
  // A frontend's dialect (TOSA) and ops MLIR 19 cannot bufferize
  // (tensor.concat) are dealt with before the first decision, and the
  // function's pipeline begins with what did it.
  mlir::OwningOpRef<mlir::ModuleOp> scratch = source.first();
  auto preparation = prepareForStages(*scratch);
  if (!preparation)
    return selectorError("@" + decided.name + ": " + llvm::toString(preparation.takeError()));
  observer.restart = [again = source.again] {
    mlir::OwningOpRef<mlir::ModuleOp> fresh = again();
    // It prepared this same IR a moment ago; were it to fail now, the
    // replayed actions would fail on the unprepared IR and say so.
    llvm::consumeError(prepareForStages(*fresh).takeError());
    return fresh;
  };
  auto inScratch = scratch->lookupSymbol<mlir::func::FuncOp>(decided.name);
  std::string belowRange = inScratch ? belowTrainingRange(inScratch, source.declared) : "";
  if (!belowRange.empty()) {
    decided.chosen = "default";
    decided.note = belowRange;
  }
  auto defaultStart = Clock::now();
  auto actions = belowRange.empty()
                     ? plan(*scratch, *policyImpl, opts.target, opts.maxSteps, observer)
                     : planDefault(*scratch, &decided.leftOut);
  if (!belowRange.empty()) // default's plan is its passes, run as it goes
    passMicros += microsSince(defaultStart);
  for (const std::string &why : decided.leftOut)
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
  if (scratchOut)
    *scratchOut = std::move(scratch);
  return decided;
}

llvm::Error checkSelectable(mlir::ModuleOp module) {
  if (!definesFunctions(module))
    return selectorError("the module has no function with a body to optimize" +
                         whatIsThereInstead(module));
  if (std::string refusal = refusalReason(module); !refusal.empty())
    return selectorError(refusal);
  return llvm::Error::success();
}

/// Notes in \p notes each module nested in \p module whose functions a
/// selection of \p module does not decide.
static void noteNestedModules(mlir::ModuleOp module, std::vector<std::string> &notes) {
  for (const std::string &name : nestedModulesWithFunctions(module))
    notes.push_back("the functions of nested module " + name +
                    " are left as they are: give that module on its own, or nest the pass "
                    "(builtin.module(builtin.module(mqss-select)))");
}

/// Adds \p decided to \p selection.
static void addFunction(Selection &selection, FunctionSelection decided) {
  for (double us : decided.decisionMicros)
    selection.decisionMicros += us;
  selection.functions.push_back(std::move(decided));
}

/// Says "default" for the whole selection when every function got it and
/// their plans agree. Plans that differ are each function's own `default`
/// plan, which the `default` pipeline of the whole module is not (an action
/// one function forbids is left out of it for all): "default-per-function".
static void finishSelection(Selection &selection) {
  if (llvm::all_of(selection.functions,
                   [](const FunctionSelection &f) { return f.chosen == "default"; }))
    selection.chosen = selection.uniform() ? "default" : "default-per-function";
}

llvm::Expected<Selection>
Selector::decide(mlir::ModuleOp module, std::vector<mlir::OwningOpRef<mlir::ModuleOp>> *results,
                 std::vector<DecisionExplanation> *explanations, unsigned topK) {
  completeRegistrations(*module->getContext());
  std::vector<mlir::func::FuncOp> functions = definedFunctions(module);
  if (llvm::Error error = checkSelectable(module))
    return std::move(error);
  Selection selection;
  FunctionIndex index = indexFunctions(module);
  FunctionOps declared = calleeOps(module);
  for (mlir::func::FuncOp function : functions) {
    mlir::OwningOpRef<mlir::ModuleOp> scratch;
    llvm::StringRef name = function.getSymName();
    Scratch source = copiedScratch(module, index, name, functions.size() == 1);
    source.declared = &declared;
    auto decided = decideFunction(name, source, selection.passMicros, explanations, topK,
                                  results ? &scratch : nullptr);
    if (!decided)
      return decided.takeError();
    addFunction(selection, std::move(*decided));
    if (results)
      results->push_back(std::move(scratch));
  }
  finishSelection(selection);
  noteNestedModules(module, selection.notes);
  return selection;
}

namespace {
/// The functions of one module, decided by several threads that each parsed
/// the module's text into their own context: which function is next, and
/// what each thread found. Function i is the i-th with a body in every
/// parse, since all parse the same text.
struct SharedFunctions {
  std::vector<std::string> names; ///< in the calling thread's parse
  std::atomic<unsigned> next{0};
  std::atomic<bool> stop{false}; ///< an error: take no more
  struct Slot {
    bool done = false;
    std::optional<FunctionSelection> selection;
    std::string error;
  };
  std::vector<Slot> slots;
  /// Helpers wait for the calling thread's verdict on the module: they
  /// parse without verifying, and passes must not run on invalid IR.
  enum class State { Pending, Valid, Invalid };
  State state = State::Pending;
  /// The last third of the module's top-level ops is verified by the first
  /// helper once it has parsed, unless the calling thread, done with the
  /// rest, got there first; the calling thread takes the helper's verdict
  /// if it is in by then, and checks the last third itself if not.
  std::atomic<bool> restClaimed{false};
  State restVerdict = State::Pending;
  std::mutex mutex;
  std::condition_variable changed;

  void set(State &what, State value) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      what = value;
    }
    changed.notify_all();
  }
  State peek(const State &what) {
    std::lock_guard<std::mutex> lock(mutex);
    return what;
  }
  State await(const State &what) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return what != State::Pending; });
    return what;
  }
};

/// Where the share of \p module's top-level ops that a helper may verify
/// begins: the last third, since a helper starts parsing later (a thread
/// to start) and parses slower than the calling thread.
unsigned helperShareBegin(mlir::ModuleOp module) {
  return module.getBody()->getOperations().size() * 2 / 3;
}

/// Verifies \p module's top-level ops from \p begin to \p end, each with
/// what it holds, as MLIR's verifier does.
bool verifyTopLevel(mlir::ModuleOp module, unsigned begin, unsigned end) {
  unsigned i = 0;
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    if (i >= end)
      break;
    if (i++ >= begin && mlir::failed(mlir::verify(&op)))
      return false;
  }
  return true;
}

/// Parses \p source as loadModuleSource does but without verifying or
/// reporting: a helper's copy of what the calling thread parses.
mlir::OwningOpRef<mlir::ModuleOp> parseQuietly(mlir::MLIRContext &context, llvm::StringRef source,
                                               llvm::StringRef bufferName) {
  if (findParserHazard(source))
    return nullptr; // the loader says why
  DiagnosticCollector quiet(context);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(source, bufferName),
                                llvm::SMLoc());
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(
      sourceMgr, mlir::ParserConfig(&context, /*verifyAfterParse=*/false));
  if (module && mlir::failed(refuseVerifierCrashes(*module)))
    return nullptr; // the loader says why, before its verifier would crash
  return module;
}

/// The scratch modules selectSource() plans function \p name on, taken
/// from \p module, which was parsed for it and is needed by nothing else:
/// the function (the whole module's ops, when it is the only function with
/// a body) is moved rather than copied (see isolateFunction), and a fresh
/// copy after a failed action comes from parsing \p source again.
Selector::Scratch takenScratch(mlir::ModuleOp module, FunctionIndex &index,
                               llvm::StringRef name, bool single, llvm::StringRef source,
                               llvm::StringRef bufferName) {
  Selector::Scratch scratch = copiedScratch(module, index, name, single);
  mlir::func::FuncOp function = index.lookup(name);
  if (!function || (!single && hasTensorSignature(function)))
    return scratch;
  if (single) {
    // The whole module, as copiedScratch's, with its ops moved over.
    scratch.first = [module]() mutable {
      mlir::OwningOpRef<mlir::ModuleOp> whole = mlir::ModuleOp::create(module.getLoc());
      whole.get()->setAttrs(module->getAttrs());
      whole->getBody()->getOperations().splice(whole->getBody()->end(),
                                               module.getBody()->getOperations());
      stripToTopLevelPayload(*whole);
      return whole;
    };
  } else {
    scratch.first = [&index, module, name = name.str()] {
      return isolateFunction(module, index, name, /*take=*/true);
    };
  }
  scratch.again = [context = module.getContext(), source, bufferName, name = name.str(),
                   single] {
    mlir::OwningOpRef<mlir::ModuleOp> fresh = parseQuietly(*context, source, bufferName);
    if (!fresh) // it parsed a moment ago
      return mlir::OwningOpRef<mlir::ModuleOp>(
          mlir::ModuleOp::create(mlir::UnknownLoc::get(context)));
    FunctionIndex freshIndex = indexFunctions(*fresh);
    return copiedScratch(*fresh, freshIndex, name, single).first();
  };
  return scratch;
}

/// More than one function with a body is possible: worth a helper.
bool mayHoldSeveralFunctions(llvm::StringRef source) {
  size_t first = source.find("func.func");
  return first != llvm::StringRef::npos &&
         source.find("func.func", first + 1) != llvm::StringRef::npos;
}
} // namespace

std::optional<Selection> Selector::selectInParts(mlir::MLIRContext &context,
                                                 llvm::StringRef source,
                                                 llvm::StringRef bufferName,
                                                 const SourceLayout &layout, unsigned parts,
                                                 Clock::time_point start) {
  // Runs of consecutive functions with about as much text each: parsing
  // and deciding both take about the time the text's length says.
  struct Part {
    std::vector<bool> owned;
    std::vector<llvm::StringRef> expected; ///< functions with a body in its text
    std::string text;
    std::vector<FunctionSelection> decided;
    Selection::ThreadTime time;
  };
  size_t total = 0;
  for (const SourceFunction &function : layout.functions)
    total += function.end - function.begin;
  std::vector<Part> shares(parts);
  size_t before = 0;
  for (unsigned i = 0; i < layout.functions.size(); ++i) {
    size_t size = layout.functions[i].end - layout.functions[i].begin;
    unsigned part = std::min<size_t>(parts - 1, (before + size / 2) * parts / std::max<size_t>(total, 1));
    before += size;
    for (unsigned k = 0; k < parts; ++k)
      shares[k].owned.push_back(k == part);
  }
  for (Part &part : shares) {
    std::vector<bool> needed = neededFunctions(layout, part.owned);
    for (unsigned i = 0; i < needed.size(); ++i)
      if (needed[i])
        part.expected.push_back(layout.functions[i].name);
    part.text = blankFunctions(source, layout, needed);
  }

  std::atomic<bool> failed{false};
  auto work = [&](Part &part, mlir::MLIRContext &partContext) {
    mlir::OwningOpRef<mlir::ModuleOp> module = parseQuietly(partContext, part.text, bufferName);
    // Its text must hold the functions the scan found, and be valid: the
    // parts together are then the module, verified.
    bool valid = false;
    if (module) {
      DiagnosticCollector quiet(partContext);
      std::vector<mlir::func::FuncOp> functions = definedFunctions(*module);
      valid = functions.size() == part.expected.size() &&
              llvm::all_of(llvm::zip(functions, part.expected),
                           [](auto pair) {
                             return std::get<0>(pair).getSymName() == std::get<1>(pair);
                           }) &&
              mlir::succeeded(mlir::verify(*module)) && refusalReason(*module).empty();
    }
    if (!valid) {
      failed = true;
      return;
    }
    part.time.parsedFunctions = part.expected.size();
    FunctionIndex index = indexFunctions(*module);
    FunctionOps declared = calleeOps(*module);
    for (unsigned i = 0; i < layout.functions.size() && !failed; ++i) {
      if (!part.owned[i])
        continue;
      llvm::StringRef name = layout.functions[i].name;
      Scratch scratch = takenScratch(*module, index, name, /*single=*/false, part.text, bufferName);
      scratch.declared = &declared;
      auto decided = decideFunction(name, scratch, part.time.passMicros, nullptr, 3, nullptr);
      if (!decided) {
        llvm::consumeError(decided.takeError()); // reported by the whole module's selection
        failed = true;
        return;
      }
      part.decided.push_back(std::move(*decided));
      ++part.time.functions;
      part.time.busyMicros = microsSince(start);
    }
  };
  for (unsigned k = 1; k < parts; ++k)
    helpers->run(k - 1, [&, k, allowUnregistered = context.allowsUnregisteredDialects()](
                            mlir::MLIRContext &helperContext) {
      helperContext.allowUnregisteredDialects(allowUnregistered);
      work(shares[k], helperContext);
    });
  work(shares[0], context);
  helpers->wait();
  if (failed)
    return std::nullopt;

  Selection selection;
  for (Part &part : shares) {
    for (FunctionSelection &decided : part.decided)
      addFunction(selection, std::move(decided));
    selection.passMicros += part.time.passMicros;
    selection.threads.push_back(part.time);
  }
  finishSelection(selection);
  return selection;
}

llvm::Expected<Selection> Selector::selectSource(mlir::MLIRContext &context,
                                                 llvm::StringRef source,
                                                 llvm::StringRef bufferName,
                                                 mlir::OwningOpRef<mlir::ModuleOp> *parsed) {
  auto start = Clock::now();
  completeRegistrations(context);
  SharedFunctions shared;
  std::vector<Selection::ThreadTime> times(1);
  // Takes functions until none is left, deciding each on \p module; with
  // \p consume, on the function itself rather than on a copy.
  auto work = [&](mlir::ModuleOp module, bool consume, const FunctionOps &declared,
                  Selection::ThreadTime &time) {
    std::vector<mlir::func::FuncOp> functions = definedFunctions(module);
    FunctionIndex index = indexFunctions(module);
    time.parsedFunctions = functions.size();
    for (unsigned i = shared.next++; i < shared.slots.size() && !shared.stop; i = shared.next++) {
      SharedFunctions::Slot &slot = shared.slots[i];
      if (i >= functions.size() || functions[i].getSymName() != shared.names[i])
        return; // not the same module after all: the calling thread does the rest
      llvm::StringRef name = shared.names[i];
      Scratch scratch =
          consume ? takenScratch(module, index, name, functions.size() == 1, source, bufferName)
                  : copiedScratch(module, index, name, functions.size() == 1);
      scratch.declared = &declared;
      auto decided = decideFunction(name, scratch, time.passMicros, nullptr, 3, nullptr);
      if (decided) {
        slot.selection = std::move(*decided);
      } else {
        slot.error = llvm::toString(decided.takeError());
        shared.stop = true;
      }
      slot.done = true;
      ++time.functions;
      time.busyMicros = microsSince(start);
    }
  };

  std::unique_lock<std::mutex> helpersFree(helperMutex, std::try_to_lock);
  unsigned helperCount =
      helpers && helpersFree.owns_lock() && mayHoldSeveralFunctions(source) ? helpers->size() : 0;
  if (helperCount && ++helperContextUses > 256) {
    helpers->renewContexts();
    helperContextUses = 1;
  }
  // Pipelines are all the caller wants: then each thread parses only what
  // it decides, when the text's functions can be told apart unparsed.
  if (helperCount && !parsed)
    if (std::optional<SourceLayout> layout = scanFunctions(source);
        layout && layout->functions.size() > 1)
      if (std::optional<Selection> selection = selectInParts(
              context, source, bufferName, *layout,
              std::min<size_t>(1 + helperCount, layout->functions.size()), start))
        return std::move(*selection);
  times.resize(1 + helperCount);
  for (unsigned h = 0; h < helperCount; ++h)
    helpers->run(h, [&, h, allowUnregistered = context.allowsUnregisteredDialects()](
                        mlir::MLIRContext &helperContext) {
      helperContext.allowUnregisteredDialects(allowUnregistered);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          parseQuietly(helperContext, source, bufferName);
      if (h == 0 && !shared.restClaimed.exchange(true)) {
        bool valid;
        {
          DiagnosticCollector quiet(helperContext);
          valid = module && verifyTopLevel(*module, helperShareBegin(*module), ~0u);
        }
        shared.set(shared.restVerdict, valid ? SharedFunctions::State::Valid
                                             : SharedFunctions::State::Invalid);
      }
      if (shared.await(shared.state) == SharedFunctions::State::Valid && module)
        work(*module, /*consume=*/true, calleeOps(*module), times[1 + h]);
    });
  auto joinHelpers = [&] {
    if (helperCount)
      helpers->wait();
  };

  // The module's verification is split with the first helper: this thread
  // checks the module itself and the first two thirds of what it holds.
  auto vouch = [&](mlir::ModuleOp module) {
    unsigned share = helperShareBegin(module);
    if (mlir::failed(mlir::verify(module, /*verifyRecursively=*/false)) ||
        !verifyTopLevel(module, 0, share))
      return false;
    // The helper's verdict when it has one; else this thread does not wait
    // for a helper slowed down (its core taken) but checks the rest itself.
    if (shared.restClaimed.exchange(true))
      if (SharedFunctions::State verdict = shared.peek(shared.restVerdict);
          verdict != SharedFunctions::State::Pending)
        return verdict == SharedFunctions::State::Valid;
    return verifyTopLevel(module, share, ~0u);
  };
  auto module = loadModuleSource(context, source, bufferName,
                                 helperCount ? llvm::function_ref<bool(mlir::ModuleOp)>(vouch)
                                             : nullptr);
  std::vector<mlir::func::FuncOp> functions;
  if (!module) {
    shared.set(shared.state, SharedFunctions::State::Invalid);
    joinHelpers();
    return module.takeError();
  }
  // The helpers start on a valid module while this thread checks whether
  // it is one mqss decides for (rarely not: their work is then dropped).
  functions = definedFunctions(**module);
  for (mlir::func::FuncOp function : functions)
    shared.names.push_back(function.getSymName().str());
  shared.slots.resize(functions.size());
  shared.set(shared.state, SharedFunctions::State::Valid);
  if (llvm::Error error = checkSelectable(**module)) {
    shared.stop = true;
    joinHelpers();
    return std::move(error);
  }
  // Before the work below may move the module's ops into a scratch module.
  std::vector<std::string> notes;
  noteNestedModules(**module, notes);
  // The caller's module is handed back as parsed: then functions are copied.
  FunctionOps declared = calleeOps(**module);
  work(**module, /*consume=*/!parsed, declared, times[0]);
  joinHelpers();

  // In order: the first function's error is the answer, as in select().
  FunctionIndex index = indexFunctions(**module);
  Selection selection;
  for (unsigned i = 0; i < functions.size(); ++i) {
    SharedFunctions::Slot &slot = shared.slots[i];
    if (!slot.done) { // left by a helper that stopped, or after an error
      Scratch scratch = copiedScratch(**module, index, shared.names[i], functions.size() == 1);
      scratch.declared = &declared;
      auto decided =
          decideFunction(shared.names[i], scratch, times[0].passMicros, nullptr, 3, nullptr);
      if (!decided)
        return decided.takeError();
      slot.selection = std::move(*decided);
      ++times[0].functions;
      times[0].busyMicros = microsSince(start);
    }
    if (!slot.error.empty())
      return selectorError(slot.error);
    addFunction(selection, std::move(*slot.selection));
  }
  finishSelection(selection);
  selection.notes = std::move(notes);
  for (const Selection::ThreadTime &time : times)
    selection.passMicros += time.passMicros;
  selection.threads = std::move(times);
  if (parsed)
    *parsed = std::move(*module);
  return selection;
}

std::optional<double> Selector::deferralThreshold() const {
  const ModelMetadata &model = policyImpl->metadata();
  if (!opts.deferBelowTrainingRange || !model.minTrainedLog2Ops)
    return std::nullopt;
  return std::exp2(*model.minTrainedLog2Ops - 1);
}

FunctionOps Selector::calleeOps(mlir::ModuleOp module) const {
  std::optional<double> threshold = deferralThreshold();
  if (!threshold || definedFunctions(module).size() < 2)
    return {};
  return executedOpsByFunction(module, *threshold);
}

std::string Selector::belowTrainingRange(mlir::func::FuncOp function,
                                         const FunctionOps *declared) const {
  std::optional<double> threshold = deferralThreshold();
  if (!threshold)
    return "";
  // Large kernels, the usual case, stop the count early.
  std::optional<double> ops = executedOps(function, *threshold, declared);
  if (!ops || *ops <= 0)
    return ""; // not known statically: the policy decides
  if (*ops >= *threshold)
    return "";
  const ModelMetadata &model = policyImpl->metadata();
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

llvm::Expected<NextDecision> Selector::next(mlir::ModuleOp module, const Chain &chain) {
  llvm::ArrayRef<const Action *> history = chain.history;
  llvm::function_ref<bool(const Action &)> fails = chain.fails;
  auto start = Clock::now();
  completeRegistrations(*module->getContext());
  // As select() and the pipeline endpoints: a module without a function to
  // decide (declarations, the LLVM dialect, a transform script) has no next
  // pass either.
  if (llvm::Error error = checkSelectable(module))
    return std::move(error);
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
    return refuses(action, module) || (fails && action.kind != ActionKind::Finish && fails(action));
  };
  // Judged where select() judges it: passes such as tiling can make a
  // static count unknown half way.
  std::string belowRange = belowTrainingRange(chain.start ? chain.start : module);
  if (belowRange.empty() && history.size() >= opts.maxSteps) {
    next.action = lookupAction("finish-O3"); // as plan() ends at the step limit
    next.probability = 1;
  } else if (belowRange.empty()) {
    Decision decision = policyImpl->decide(features, mask);
    while (refused(*decision.action)) {
      for (const Action *sibling : actionsFailingWith(*decision.action))
        mask[actionIndex(*sibling)] = false;
      decision = policyImpl->decide(features, mask);
    }
    next.action = decision.action;
    next.probability = decision.probability;
  } else {
    // select() plans `default` here. Part way, what planSequence left out at
    // an earlier step (a tiling a dependence forbade then) may pass its
    // check now: the plan itself, made again from the start, says what
    // follows. That runs the passes, so only for a caller that may.
    std::optional<const Action *> planned;
    if (chain.start && chain.fails && !history.empty()) {
      mlir::OwningOpRef<mlir::ModuleOp> scratch = mlir::ModuleOp(chain.start).clone();
      auto plan = planDefault(*scratch);
      if (!plan)
        llvm::consumeError(plan.takeError());
      else if (history.size() <= plan->size() &&
               std::equal(history.begin(), history.end(), plan->begin()))
        planned = history.size() < plan->size() ? (*plan)[history.size()] : nullptr;
    }
    // Otherwise the list's step on this IR, as planSequence takes it (the
    // stage's mask, no history).
    const Action *action =
        planned ? *planned
                : firstPreference(defaultSequence(), legalMask(summary, summary.stage()),
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

/// A copy of \p module, stripped to its top-level payload as the plans
/// were made (stripToTopLevelPayload), with \p pipeline applied.
static llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
appliedToWhole(mlir::ModuleOp module, llvm::StringRef pipeline) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  stripToTopLevelPayload(*copy);
  if (llvm::Error error = applyPipeline(*copy, pipeline))
    return std::move(error);
  return copy;
}

/// Makes \p module \p result, with what the stripping took out back in.
static void installWhole(mlir::ModuleOp module, mlir::OwningOpRef<mlir::ModuleOp> result) {
  restoreStripped(*result, module);
  replaceModuleContents(module, std::move(result));
}

llvm::Error Selector::install(mlir::ModuleOp module,
                              std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results,
                              Selection &selection) {
  if (results.size() == 1) {
    installWhole(module, std::move(results.front()));
    return llvm::Error::success();
  }
  std::vector<std::string> order;
  for (const FunctionSelection &function : selection.functions)
    order.push_back(function.name);
  mlir::OwningOpRef<mlir::ModuleOp> merged = std::move(results.front());
  for (size_t i = 1; i < results.size(); ++i)
    if (llvm::Error error = mergeFunction(*merged, *results[i], order[i], order))
      return error;
  restoreStripped(*merged, module);
  restoreModuleOrder(*merged, module);
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
  auto whole = appliedToWhole(module, first.pipeline);
  if (!whole)
    return whole.takeError();
  installWhole(module, std::move(*whole));
  for (FunctionSelection &function : selection.functions) {
    function.actions = first.actions;
    function.pipeline = first.pipeline;
  }
  return llvm::Error::success();
}

llvm::Error Selector::apply(mlir::ModuleOp module, Selection &selection) {
  if (selection.functions.empty())
    return selectorError("the selection is empty");
  // Its pipelines preload the schedule library and bufferize, as a
  // decision's do.
  completeRegistrations(*module->getContext());
  if (llvm::Error error = checkResourceData(module))
    return error;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results;
  if (selection.uniform()) {
    auto whole = appliedToWhole(module, selection.functions.front().pipeline);
    if (!whole)
      return whole.takeError();
    installWhole(module, std::move(*whole));
    return llvm::Error::success();
  }
  // A selection made for another module names functions this one lacks.
  for (const FunctionSelection &function : selection.functions) {
    auto defined = module.lookupSymbol<mlir::func::FuncOp>(function.name);
    if (!defined || defined.isExternal())
      return selectorError("the selection is for @" + function.name +
                           ", which this module does not define: apply a selection to the "
                           "module it was made for");
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
  // The decision alone may be made on such a module; the IR it would give
  // may not.
  if (llvm::Error error = checkResourceData(module))
    return std::move(error);
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results;
  auto selection = decide(module, &results, nullptr, 3);
  if (!selection)
    return selection.takeError();
  if (llvm::Error error = install(module, std::move(results), *selection))
    return std::move(error);
  return selection;
}

} // namespace mqss
