//===- Guard.cpp - Selection with a measured guard -------------------------===//
//
// The policy's top candidates are timed against `default` by the
// measurement harness (sandboxed child, JIT, seeded inputs, output check
// against the naive lowering). Kept apart from Selector.cpp so that code
// without the JIT (the pass plugin inside mlir-opt) links the selector
// without it.
//
//===----------------------------------------------------------------------===//

#include "mqss/Selector/Selector.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/Policy/Policy.h"
#include "mqss/Runtime/Buffers.h"
#include "mqss/Runtime/Target.h"
#include "mqss/Runtime/TemporaryFile.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

namespace mqss {

namespace {
/// \p selection with every function given \p actions, after \p preparation
/// (what prepareForStages did to the whole module).
llvm::Expected<Selection> uniformSelection(Selection selection,
                                           const std::vector<const Action *> &actions,
                                           llvm::StringRef preparation) {
  auto pipeline = pipelineForActions(actions);
  if (!pipeline)
    return pipeline.takeError();
  for (FunctionSelection &function : selection.functions) {
    function.actions = actions;
    function.pipeline = joinAfterPreparation(preparation, *pipeline);
  }
  return selection;
}

/// A copy of \p module prepared as a selection prepares it, and the
/// pipeline text of that preparation.
llvm::Expected<std::pair<mlir::OwningOpRef<mlir::ModuleOp>, std::string>>
preparedCopy(mlir::ModuleOp module) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  auto preparation = prepareForStages(*copy);
  if (!preparation)
    return preparation.takeError();
  return std::make_pair(std::move(copy), std::move(*preparation));
}
} // namespace

llvm::Error SelectorOptions::parseGuardInputs(llvm::ArrayRef<std::string> shapes,
                                              llvm::ArrayRef<std::string> scalars) {
  for (const std::string &text : shapes)
    if (llvm::Error error = parseShapeOption(text, guardShapes))
      return error;
  for (const std::string &text : scalars)
    if (llvm::Error error = parseScalarOption(text, guardScalars))
      return error;
  return llvm::Error::success();
}

ResolvedPipeline Selector::harnessPipeline(const Selection &selection) {
  ResolvedPipeline resolved;
  resolved.text = selection.describe();
  if (!selection.functions.empty())
    resolved.llvmOptLevel = llvmOptLevelFor(selection.functions.front().actions);
  if (!selection.uniform())
    resolved.transform = [this, copy = selection](mlir::ModuleOp module) mutable {
      return apply(module, copy);
    };
  return resolved;
}

llvm::Expected<Selection> Selector::selectMeasured(mlir::ModuleOp module) {
  if (auto runnable = resolveTarget(opts.target); !runnable)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the measured guard runs the code here: " +
                                       llvm::toString(runnable.takeError()));
  std::string text;
  llvm::raw_string_ostream os(text);
  // With its locations: the children's notes and errors then point into the
  // user's file, not into this temporary one.
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  auto file = TemporaryFile::create("mqss-guard", text);
  if (!file)
    return file.takeError();

  // Candidates: the policy's per-function selection, and the plan that starts
  // with the policy's runner-up first action.
  // One pass of decisions gives both the selection and, from its first
  // decision's explanation, the runner-up.
  std::vector<DecisionExplanation> explanations;
  auto decided = decide(module, nullptr, &explanations, /*topK=*/1);
  if (!decided)
    return decided.takeError();
  std::vector<Selection> candidates{*decided};
  if (!explanations.empty() && !explanations.front().alternatives.empty()) {
    const Action *runnerUp = explanations.front().alternatives.front().action;
    auto prepared = preparedCopy(module);
    if (!prepared)
      return prepared.takeError();
    auto &[scratch, preparation] = *prepared;
    std::vector<const Action *> branch{runnerUp};
    if (runnerUp->kind != ActionKind::Finish) {
      if (llvm::Error error = applyAction(*scratch, *runnerUp)) {
        llvm::consumeError(std::move(error)); // an illegal branch: one candidate fewer
        branch.clear();
      } else if (auto rest = planWithPolicy(*scratch, *policyImpl, opts.target,
                                            opts.maxSteps - 1)) {
        branch.insert(branch.end(), rest->begin(), rest->end());
      } else {
        llvm::consumeError(rest.takeError());
        branch.clear();
      }
    }
    if (!branch.empty()) {
      auto alternative = uniformSelection(*decided, branch, preparation);
      if (!alternative)
        return alternative.takeError();
      alternative->chosen = "policy-runner-up";
      for (FunctionSelection &function : alternative->functions) {
        function.chosen = "policy-runner-up"; // every function gets the branch
        function.note.clear();
      }
      candidates.push_back(std::move(*alternative));
    }
  }

  auto measure = [&](llvm::StringRef pipeline, llvm::StringRef baseline,
                     std::optional<ResolvedPipeline> candidate) {
    RunRequest request;
    request.inputPath = file->path();
    request.target = opts.target;
    request.pipeline = pipeline.str();
    request.baseline = baseline.str();
    request.entry = opts.guardEntry;
    request.inputs.shapes = opts.guardShapes;
    request.inputs.scalars = opts.guardScalars;
    request.limits.timeoutSeconds = opts.guardTimeoutSeconds;
    useNamedPipelines(request);
    if (candidate) {
      PipelineResolver named = request.resolvePipeline;
      request.resolvePipeline = [named, candidate = *candidate](
                                    mlir::ModuleOp module, llvm::StringRef spec,
                                    llvm::StringRef target) -> llvm::Expected<ResolvedPipeline> {
        if (spec == "mqss:guard-candidate")
          return candidate;
        return named(module, spec, target);
      };
    }
    return runMeasurement(request);
  };

  double best = 0;
  std::optional<size_t> bestIndex;
  std::string lastFailure;
  std::vector<std::string> notes;
  auto keepNotes = [&](const RunReport &report) {
    for (const std::string &note : report.notes)
      if (!llvm::is_contained(notes, note))
        notes.push_back(note);
  };
  for (size_t i = 0; i < candidates.size(); ++i) {
    RunReport report = measure("mqss:guard-candidate", "default", harnessPipeline(candidates[i]));
    if (!report.ok() || !report.speedup) {
      lastFailure = (runStatusName(report.status) + ": " + report.message).str();
      // The module or its inputs at fault (it does not run as given, its
      // naive reference hangs): every other candidate, and `default`, would
      // fail the same way, each after as long a wait.
      std::string without = failedWithoutTheCandidate(report);
      if (isInputFault(report.status) || !without.empty())
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "cannot measure the module: " +
                                           (without.empty() ? lastFailure : without));
      continue;
    }
    if (!bestIndex || report.speedup->median > best) {
      best = report.speedup->median;
      bestIndex = i;
    }
    keepNotes(report);
  }
  if (!bestIndex) {
    // No candidate ran: each crashed, timed out, computed something else or
    // did not compile. `default` is what the guard keeps when no candidate
    // beats it, so it is kept now too, once it has been seen to run.
    RunReport report = measure("default", "naive", std::nullopt);
    if (!report.ok())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot measure the module: " + lastFailure +
                                         "; `default` fails too: " +
                                         runStatusName(report.status).str() + ": " +
                                         report.message);
    keepNotes(report);
    notes.push_back("no candidate of the policy ran (" + lastFailure + "): `default` kept");
    bestIndex = 0;
    best = 0;
  }

  Selection chosen = std::move(candidates[*bestIndex]);
  chosen.measuredSpeedup = best;
  chosen.measurementNotes = notes;
  if (best > 1.0) // a tie keeps `default`
    return chosen;
  auto prepared = preparedCopy(module);
  if (!prepared)
    return prepared.takeError();
  auto fallback = planDefault(*prepared->first);
  if (!fallback)
    return fallback.takeError();
  auto kept = uniformSelection(std::move(chosen), *fallback, prepared->second);
  if (!kept)
    return kept.takeError();
  kept->chosen = "default";
  for (FunctionSelection &function : kept->functions)
    function.chosen = "default";
  kept->measuredSpeedup = 1.0;
  return kept;
}

} // namespace mqss
