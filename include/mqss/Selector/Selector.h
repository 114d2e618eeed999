//===- Selector.h - The C++ API: choose, apply and explain a pipeline ------===//
//
// What a compiler links (`find_package(MQSS)`, `MQSS::Selector`): load a
// model once, then for each module
//
//   mqss::SelectorOptions options;
//   options.target = "x86-avx2";
//   auto selector = mqss::Selector::create(options);
//   auto selection = (*selector)->select(module);   // decisions per function
//   llvm::Error e = (*selector)->apply(module, *selection);
//
// Decisions are made greedily by the policy, stage by stage, on a scratch
// copy of each function (its own features, its own sequence); `apply` then
// runs each function's pipeline. This header does not include libtorch.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_SELECTOR_SELECTOR_H
#define MQSS_SELECTOR_SELECTOR_H

#include "mqss/Actions/Catalog.h"
#include "mqss/Features/Encoder.h"
#include "mqss/Runtime/Harness.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mqss {

class HelperThreads;
class Policy;
struct LoadedModel;
struct SourceLayout;

/// Plans a sequence with \p policy on \p module in-process (greedy, as a
/// deployed selector decides), applying each action. The caller isolates
/// it when the IR is untrusted. \p decisionMicros receives the time of each
/// decision (features + inference).
llvm::Expected<std::vector<const Action *>>
planWithPolicy(mlir::ModuleOp module, Policy &policy, llvm::StringRef target,
               unsigned maxSteps, std::vector<double> *decisionMicros = nullptr);

/// Fails, saying why, when \p module holds nothing the selector decides: no
/// function with a body at its top level (the error says what is there
/// instead), or IR it refuses.
llvm::Error checkSelectable(mlir::ModuleOp module);

struct SelectorOptions {
  /// Model file; empty means the shipped default (or $MQSS_MODEL).
  std::string modelPath;
  /// The model already read from modelPath, shared: a selector made with it
  /// does not read the file again (a server's workers, whose file may be
  /// replaced or removed after it was loaded).
  std::shared_ptr<const LoadedModel> model;
  /// host, x86-avx512, x86-avx2, x86-sse4 (see `mqss run --help`).
  std::string target = "host";
  unsigned maxSteps = 8;
  /// A function that executes far fewer ops than any the model was trained
  /// on (half the smallest, see ModelMetadata::minTrainedLog2Ops) gets the
  /// `default` baseline's plan: the policy has not seen kernels that small,
  /// and on such kernels from other frontends it was 0.75x of default.
  bool deferBelowTrainingRange = true;
  /// What the measured guard (selectMeasured) runs: the entry function
  /// (empty: the only public one), sizes of dynamically shaped arguments and
  /// values of scalar ones, as `mqss run`'s --entry, --shape and --arg.
  std::string guardEntry;
  std::map<std::string, std::vector<int64_t>> guardShapes;
  std::map<std::string, double> guardScalars;
  /// How long one guard measurement may run, as `mqss run --timeout-s`.
  double guardTimeoutSeconds = 60;
  /// Sets guardShapes and guardScalars from texts as `mqss run` takes them
  /// ("arg0=64x?" ... "arg1=200"), checked as it checks them. (In Guard.cpp:
  /// the parsing is the measurement harness's, which the plugin lacks.)
  llvm::Error parseGuardInputs(llvm::ArrayRef<std::string> shapes,
                               llvm::ArrayRef<std::string> scalars);
  /// Threads selectSource() decides functions on. With more than one, each
  /// helper thread parses into an MLIR context of its own (contexts are not
  /// shared between threads): when the text's functions can be told apart
  /// unparsed (see SourceLayout.h), each thread parses, verifies and
  /// decides its share of them; otherwise every thread parses the whole
  /// text, the calling thread verifies it, and they take the functions in
  /// turn. The helper threads start with the selector and wait for work
  /// (a child forked from the process has none: give it a one-thread
  /// selector). At most kMaxSelectorThreads.
  unsigned threads = 1;
};

/// The most SelectorOptions::threads may be: each is a thread with an MLIR
/// context of its own, and more gain nothing on any machine mqss runs on.
inline constexpr unsigned kMaxSelectorThreads = 256;

/// The decision for one function of a module.
struct FunctionSelection {
  std::string name;
  std::vector<const Action *> actions;
  /// The textual pipeline equivalent to the actions (mlir-opt syntax, without
  /// the outer builtin.module), applied to a module holding this function.
  std::string pipeline;
  std::vector<double> decisionMicros; ///< per decision: features + inference
  /// "policy", or "default" when the function is below the training range.
  std::string chosen = "policy";
  /// Why it was not the policy's plan (empty when it was), followed by
  /// leftOut's entries.
  std::string note;
  /// Actions the plan passed over because they failed here, each as "left
  /// out NAME: why": the IR they would have changed is left as it was.
  std::vector<std::string> leftOut;
};

struct Selection {
  std::vector<FunctionSelection> functions;
  /// Features + inference over all decisions, in microseconds.
  double decisionMicros = 0;
  /// Time spent applying actions while deciding (pass execution).
  double passMicros = 0;
  /// "policy"; "default" when every function got `default`'s plan and the
  /// plans agree, "default-per-function" when they differ (the `default`
  /// pipeline of the whole module is then another plan); with a measured
  /// guard also "policy-runner-up" when the plan that starts with the
  /// runner-up first action measured fastest, and "default" when the
  /// baseline was kept.
  std::string chosen = "policy";
  /// With a guard: the chosen pipeline's measured speedup over `default`,
  /// and what its measurements noted (e.g. a scalar argument defaulted to 0).
  std::optional<double> measuredSpeedup;
  std::vector<std::string> measurementNotes;
  /// What the selection left alone and why: functions in a nested module
  /// (decided only by a selection of that module).
  std::vector<std::string> notes;
  /// From selectSource(): per thread that decided functions (the calling
  /// thread first), the time from the call until it had decided its last
  /// function, parsing included, and how much of it went into applying
  /// actions. The longest `busyMicros - passMicros` is the selection's
  /// latency without pass execution.
  struct ThreadTime {
    double busyMicros = 0;
    double passMicros = 0;
    unsigned functions = 0;
    /// Functions with a body in the text it parsed: all of them, or (when
    /// it parsed its part of the text) its own and what they call.
    unsigned parsedFunctions = 0;
  };
  std::vector<ThreadTime> threads;

  /// True when every function got the same sequence: one pipeline applies
  /// to the whole module.
  bool uniform() const;
  /// The pipeline when uniform, else "@f: P | @g: Q".
  std::string describe() const;
  /// Whether pastingNote() can say anything for a module whose source (text
  /// or bytecode) is \p source, without parsing it.
  bool mayNeedPastingNote(llvm::StringRef source) const;
  /// What pasting the printed pipeline into mlir-opt needs first, to apply
  /// it to the whole \p module as mqss does, or "" (one line per reason):
  /// one-shot bufferization across function boundaries refuses the module's
  /// unused declarations that return tensors, which mqss plans without (and
  /// keeps in the optimized module); and mqss sets the module's own
  /// transform scripts aside while passes run, which a pasted pipeline
  /// would also rewrite.
  std::string pastingNote(mlir::ModuleOp module) const;
};

struct FeatureWeight {
  std::string name;
  float weight = 0; ///< gradient x input of log p(action)
};

struct ActionProbability {
  const Action *action = nullptr;
  float probability = 0;
};

struct DecisionExplanation {
  std::string function;
  unsigned step = 0;
  Stage stage = Stage::Tensor;
  const Action *action = nullptr;
  float probability = 0;
  std::vector<FeatureWeight> topFeatures; ///< largest |weight| first
  std::vector<ActionProbability> alternatives; ///< runner-up actions, most probable first
};

/// One decision on a module in a given state (what `POST /v1/select` answers).
struct NextDecision {
  const Action *action = nullptr;
  float probability = 0;
  Stage stage = Stage::Tensor;
  FeatureVector features{};
  double decisionMicros = 0; ///< features + inference
  /// "policy", or "default" when every function of the module is below the
  /// training range: then `action` is the `default` plan's next action.
  std::string chosen = "policy";
  std::string note; ///< why it is not the policy's action (empty when it is)
};

/// Where a module is in a plan decided one action at a time.
struct Chain {
  /// The actions taken so far, already applied to the module.
  llvm::ArrayRef<const Action *> history;
  /// The module before them; null when it is the module itself.
  mlir::ModuleOp start;
  /// Given by a caller that may run passes: tries an action on a copy of the
  /// module. One that fails is ruled out, with the actions failing with it,
  /// and the decision made again, as select() does when it plans. A
  /// function_ref: what it refers to must outlive the Chain (a named lambda,
  /// not one written inside the Chain's braces and kept after the call).
  llvm::function_ref<bool(const Action &)> fails;
};

class Selector {
public:
  /// Loads the model and checks the target. Errors name what is wrong: a
  /// missing or corrupt model file, a model made for another feature spec,
  /// catalog or MLIR version, an unknown target.
  static llvm::Expected<std::unique_ptr<Selector>> create(const SelectorOptions &options);
  ~Selector();

  /// Decides a sequence for each function with a body (\p module is not
  /// changed). A module without such a function is an error.
  llvm::Expected<Selection> select(mlir::ModuleOp module);

  /// select() on a module given as text: parses \p source into \p context
  /// (errors as loadModuleSource's, a LoadError) and decides every function,
  /// on SelectorOptions::threads threads. The selection is the one select()
  /// makes on the parsed module. With \p parsed, the module is kept there.
  /// For `mqss select` when only pipelines are printed: the helpers' IR stays
  /// in their contexts, so optimize() is what gives the optimized module.
  llvm::Expected<Selection> selectSource(mlir::MLIRContext &context, llvm::StringRef source,
                                         llvm::StringRef bufferName,
                                         mlir::OwningOpRef<mlir::ModuleOp> *parsed = nullptr);

  /// Applies \p selection to \p module: one pipeline when it is uniform,
  /// else each function's pipeline on its own copy, merged back. When the
  /// per-function results disagree at call boundaries (one function left on
  /// tensors, its callee bufferized), the first function's sequence is
  /// applied to the whole module instead, and \p selection is changed to say so.
  llvm::Error apply(mlir::ModuleOp module, Selection &selection);

  /// select() and apply() in one go, reusing the IR the decisions produced
  /// instead of running the passes twice: what `mqss select` and the
  /// `mqss-select` pass do.
  llvm::Expected<Selection> optimize(mlir::ModuleOp module);

  /// Selects with a measured guard: the policy's plan and the plan that starts
  /// with its runner-up first action are timed against `default` in a
  /// sandboxed child (JIT, seeded inputs, output check); the fastest wins and
  /// `default` is kept unless a candidate beats it. One decision for the whole
  /// module (the harness measures modules). Needs a runnable entry function.
  llvm::Expected<Selection> selectMeasured(mlir::ModuleOp module);

  /// \p selection as a pipeline for the measurement harness (`mqss run`,
  /// the guard): its text when uniform, else a transform that applies it to
  /// the harness's copy of the module. The selector must outlive its use.
  ResolvedPipeline harnessPipeline(const Selection &selection);

  /// The next action for \p module, at the point of a plan \p chain says
  /// (nothing is applied here). A chain decided one call at a time follows
  /// the plan select() makes: the small-kernel rule is judged on the module
  /// as the chain began, and the policy's part ends with `finish-O3` after
  /// SelectorOptions::maxSteps actions.
  llvm::Expected<NextDecision> next(mlir::ModuleOp module, const Chain &chain = {});

  /// Explains every decision select() would make: the top \p topK features
  /// by |gradient x input| and the runner-up actions.
  /// Functions select() gives `default`'s plan have no decisions; with
  /// \p notes, a line saying which and why is added for each.
  llvm::Expected<std::vector<DecisionExplanation>>
  explain(mlir::ModuleOp module, unsigned topK = 3, std::vector<std::string> *notes = nullptr);

  /// Why every function of \p module with a body gets `default`'s plan
  /// rather than the policy's (SelectorOptions::deferBelowTrainingRange):
  /// the first one's reason, else "".
  std::string belowTrainingRange(mlir::ModuleOp module) const;

  const SelectorOptions &options() const { return opts; }
  std::string modelPath() const;
  Policy &policy() { return *policyImpl; }

private:
  Selector(SelectorOptions options, std::unique_ptr<Policy> policy);
  /// Decides per function; with \p results, keeps each function's planned IR.
  llvm::Expected<Selection> decide(mlir::ModuleOp module,
                                   std::vector<mlir::OwningOpRef<mlir::ModuleOp>> *results,
                                   std::vector<DecisionExplanation> *explanations,
                                   unsigned topK);
public:
  /// Where decideFunction gets the module it plans a function on: first,
  /// and again, fresh, after an action failed and left the IR unknown.
  struct Scratch {
    std::function<mlir::OwningOpRef<mlir::ModuleOp>()> first, again;
    /// What the functions the scratch module only declares execute per
    /// call (calleeOps of the module it is cut from), for the deferral rule.
    const FunctionOps *declared = nullptr;
  };

private:
  /// decide()'s work for function \p name: adds the time its actions took
  /// to \p passMicros and, with \p scratchOut, keeps the IR its plan produced.
  llvm::Expected<FunctionSelection>
  decideFunction(llvm::StringRef name, const Scratch &scratch, double &passMicros,
                 std::vector<DecisionExplanation> *explanations, unsigned topK,
                 mlir::OwningOpRef<mlir::ModuleOp> *scratchOut);
  /// selectSource()'s way when scanFunctions() found the functions in
  /// \p source: each of \p parts threads parses only the text of its share
  /// of them (and of what they call), verifies and decides it. None when a
  /// part does not parse, verify or decide: parsed whole, the module then
  /// gets the diagnostics and errors of a whole module.
  std::optional<Selection> selectInParts(mlir::MLIRContext &context, llvm::StringRef source,
                                         llvm::StringRef bufferName,
                                         const SourceLayout &layout, unsigned parts,
                                         std::chrono::steady_clock::time_point start);
  /// Why \p function gets `default`'s plan rather than the policy's (see
  /// SelectorOptions::deferBelowTrainingRange), or "".
  std::string belowTrainingRange(mlir::func::FuncOp function,
                                 const FunctionOps *declared = nullptr) const;
  /// The smallest count of executed ops the policy decides for, when the
  /// deferral rule applies.
  std::optional<double> deferralThreshold() const;
  /// executedOpsByFunction(\p module) when the deferral rule applies and
  /// \p module has functions to cut apart: taken before any is moved out.
  FunctionOps calleeOps(mlir::ModuleOp module) const;
  llvm::Error install(mlir::ModuleOp module,
                      std::vector<mlir::OwningOpRef<mlir::ModuleOp>> results,
                      Selection &selection);

  SelectorOptions opts;
  std::unique_ptr<Policy> policyImpl;
  /// selectSource()'s helper threads (SelectorOptions::threads - 1), each
  /// with its own context, started with the selector and kept. One call at
  /// a time uses them; a concurrent call decides on its own thread only.
  std::mutex helperMutex;
  std::unique_ptr<HelperThreads> helpers;
  unsigned helperContextUses = 0;
};

} // namespace mqss

#endif // MQSS_SELECTOR_SELECTOR_H
