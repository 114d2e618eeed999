//===- Baselines.cpp - Named pipelines: naive, default, expert:<family> ----===//

#include "mqss/Actions/Baselines.h"

#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Pipeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mqss {

namespace {
/// An expert's preferences: per stage, actions in order of preference.
struct ExpertRules {
  llvm::StringLiteral family;
  std::vector<llvm::StringLiteral> tensor, linalg, loops;
};

// Vectorise contractions and elementwise ops with full-tile schedules where
// the shapes allow, lower what remains to affine loops, and finish those
// with the transformations that suit the family's loop nests.
const ExpertRules kExperts[] = {
    {"matmul-like",
     {"tensor.fuse-elementwise", "tensor.bufferize"},
     {"linalg.matmul-8x32x1", "linalg.batch-matmul-1x8x32x1", "linalg.matvec-8x32",
      "linalg.elementwise-8x32", "linalg.to-affine"},
     {"loops.tile-32", "loops.vectorize-8", "loops.canonicalize"}},
    // 1x1 convolutions are matmuls in disguise: tiling their affine nests
    // pays; 3x3 ones change little either way.
    {"conv",
     {"tensor.bufferize"},
     {"linalg.elementwise-8x32", "linalg.to-affine"},
     {"loops.tile-32", "loops.vectorize-8", "loops.canonicalize"}},
    {"attention",
     {"tensor.fuse-elementwise", "tensor.bufferize"},
     {"linalg.matmul-8x32x1", "linalg.batch-matmul-1x8x32x1", "linalg.elementwise-8x32",
      "linalg.to-affine"},
     {"loops.vectorize-8", "loops.canonicalize"}},
    {"elementwise",
     {"tensor.fuse-elementwise", "tensor.bufferize"},
     {"linalg.elementwise-8x32", "linalg.to-affine"},
     {"loops.vectorize-8", "loops.canonicalize"}},
    {"normalization",
     {"tensor.fuse-elementwise", "tensor.bufferize"},
     {"linalg.elementwise-8x32", "linalg.to-affine"},
     {"loops.fusion", "loops.vectorize-8", "loops.canonicalize"}},
    {"pooling",
     {"tensor.bufferize"},
     {"linalg.to-affine"},
     {"loops.vectorize-8", "loops.canonicalize"}},
    {"reduction",
     {"tensor.fuse-elementwise", "tensor.bufferize"},
     {"linalg.to-affine"},
     {"loops.vectorize-8", "loops.canonicalize"}},
    {"stencil",
     {"tensor.bufferize"},
     {"linalg.to-affine"},
     {"loops.tile-32", "loops.vectorize-8", "loops.canonicalize"}},
    {"solver",
     {"tensor.bufferize"},
     {"linalg.to-affine"},
     {"loops.scalrep", "loops.affine-licm", "loops.unroll-4", "loops.canonicalize"}},
    {"dynamic-programming",
     {"tensor.bufferize"},
     {"linalg.to-affine"},
     {"loops.scalrep", "loops.affine-licm", "loops.canonicalize"}},
    {"data-mining",
     {"tensor.bufferize"},
     {"linalg.to-affine"},
     {"loops.unroll-jam-4", "loops.vectorize-8", "loops.canonicalize"}},
};

// The best single preference list found over the train split: geomean 1.66x
// over naive on its 72 modules, against 1.51x for the next best of ten
// candidates (docs/Baselines.md has the comparison and the command).
const llvm::StringLiteral kDefaultSequence[] = {
    "tensor.fuse-elementwise", "tensor.bufferize",      "linalg.matmul-8x32x1",
    "linalg.batch-matmul-1x8x32x1", "linalg.elementwise-8x32", "linalg.to-affine",
    "loops.tile-32",           "loops.vectorize-8",     "loops.canonicalize"};

const ExpertRules *findExpert(llvm::StringRef family) {
  for (const ExpertRules &rules : kExperts)
    if (rules.family == family)
      return &rules;
  return nullptr;
}

llvm::Error unknownFamily(llvm::StringRef family) {
  std::string names;
  for (const ExpertRules &rules : kExperts)
    names += (names.empty() ? "" : ", ") + rules.family.str();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("no expert for family '{0}' (known: {1})", family, names));
}
} // namespace

std::vector<std::string> expertFamilies() {
  std::vector<std::string> names;
  for (const ExpertRules &rules : kExperts)
    names.push_back(rules.family.str());
  return names;
}

std::vector<const Action *> defaultSequence() {
  std::vector<const Action *> actions;
  for (llvm::StringRef name : kDefaultSequence)
    actions.push_back(lookupAction(name));
  return actions;
}

llvm::Expected<std::vector<const Action *>> planDefault(mlir::ModuleOp module,
                                                        std::vector<std::string> *leftOut) {
  return planSequence(module, defaultSequence(), leftOut);
}

const Action *firstPreference(llvm::ArrayRef<const Action *> preferences,
                              const std::vector<bool> &mask,
                              llvm::function_ref<bool(const Action *)> taken) {
  for (const Action *action : preferences)
    if (mask[actionIndex(*action)] && !taken(action))
      return action;
  return nullptr;
}

llvm::Expected<std::vector<const Action *>>
planSequence(mlir::ModuleOp module, llvm::ArrayRef<const Action *> preferences,
             std::vector<std::string> *leftOut, std::vector<const Action *> *ruledOut,
             llvm::DenseMap<const Action *, std::string> *notLegal) {
  std::vector<const Action *> plan, failed; // failed: ruled out
  unsigned failures = 0;
  // At each step the first action of the list that is legal here (in this
  // stage's pool, mask true) and neither applied nor failed is taken; a
  // finish action ends the plan. The list is normally ordered by stage.
  while (plan.size() + failures <= preferences.size()) {
    IRSummary summary = summarize(module);
    std::vector<bool> mask = legalMask(summary, summary.stage());
    auto taken = [&](const Action *action) {
      return llvm::is_contained(plan, action) || llvm::is_contained(failed, action);
    };
    const Action *next = firstPreference(preferences, mask, taken);
    // Why each action not legal here is not: at the last step in its own
    // stage (its rule's reason), else where the plan met it first.
    if (notLegal)
      for (const Action *action : preferences)
        if (!taken(action) && !mask[actionIndex(*action)] &&
            (action->stage == summary.stage() || !notLegal->count(action)))
          (*notLegal)[action] = notInPoolBecause(*action, summary);
    if (!next)
      break;
    plan.push_back(next);
    if (next->kind == ActionKind::Finish)
      break;
    mlir::OwningOpRef<mlir::ModuleOp> before = module.clone();
    llvm::Error error = applyAction(module, *next);
    if (!error)
      continue;
    // An upstream pass that fails on this module (a limitation or a bug,
    // e.g. affine-super-vectorize on a reduction into a smaller buffer) is
    // passed over, as the policy's plan passes over a failed action: the
    // list goes on with its next preference, from the IR before it.
    if (failures == kMaxFailedActions)
      return std::move(error);
    std::string why = llvm::toString(std::move(error));
    if (leftOut) {
      // What failed, and the first diagnostic: which op, where.
      auto [first, rest] = llvm::StringRef(why).split('\n');
      std::string note = ("left out " + next->name + ": " + first.rtrim(':')).str();
      if (llvm::StringRef diagnostic = rest.split('\n').first.trim(); !diagnostic.empty())
        note += (": " + diagnostic).str();
      // And what to do about an op MLIR 19 cannot bufferize (no pipeline
      // lowers the module while it is there).
      if (size_t hint = why.find("note: MLIR 19 "); hint != std::string::npos)
        note += ("; " + llvm::StringRef(why).substr(hint + 6).split('\n').first).str();
      leftOut->push_back(std::move(note));
    }
    plan.pop_back();
    ++failures;
    llvm::append_range(failed, actionsFailingWith(*next));
    replaceModuleContents(module, std::move(before));
  }
  if (ruledOut)
    *ruledOut = std::move(failed);
  return plan;
}

static std::vector<const Action *> expertPreferences(const ExpertRules &rules) {
  std::vector<const Action *> list;
  for (const auto *stage : {&rules.tensor, &rules.linalg, &rules.loops})
    for (llvm::StringRef name : *stage)
      list.push_back(lookupAction(name));
  return list;
}

llvm::Expected<std::vector<const Action *>>
planExpert(mlir::ModuleOp module, llvm::StringRef family, std::vector<std::string> *leftOut) {
  const ExpertRules *rules = findExpert(family);
  if (!rules)
    return unknownFamily(family);
  return planSequence(module, expertPreferences(*rules), leftOut);
}

bool isNamedPipeline(llvm::StringRef spec) {
  spec = spec.trim();
  return spec == "default" || spec.starts_with("expert:") || spec.starts_with("actions:") ||
         spec.starts_with("plan:");
}

llvm::Error validateNamedPipeline(llvm::StringRef spec) {
  spec = spec.trim();
  if (spec.consume_front("expert:"))
    return findExpert(spec) ? llvm::Error::success() : unknownFamily(spec);
  if (spec.consume_front("actions:") || spec.consume_front("plan:"))
    return parseActionList(spec).takeError();
  return llvm::Error::success();
}

/// Adds to \p leftOut the actions of a user's plan: list that are neither in
/// \p plan nor \p ruledOut (already noted as failed, or failing with one):
/// they were not legal where the plan reached them, each for the reason
/// \p notLegal gives (actions with the same reason on one line). A plan
/// that silently came out shorter than asked would leave the user guessing.
static void noteUnreached(llvm::ArrayRef<const Action *> preferences,
                          llvm::ArrayRef<const Action *> plan,
                          std::vector<const Action *> noted,
                          const llvm::DenseMap<const Action *, std::string> &notLegal,
                          std::vector<std::string> &leftOut) {
  std::vector<std::pair<std::string, std::vector<llvm::StringRef>>> byReason;
  for (const Action *action : preferences)
    if (!llvm::is_contained(plan, action) && !llvm::is_contained(noted, action)) {
      auto known = notLegal.find(action);
      std::string reason = known == notLegal.end() ? "" : known->second;
      auto same = llvm::find_if(byReason, [&](const auto &entry) { return entry.first == reason; });
      if (same == byReason.end())
        same = byReason.insert(byReason.end(), {reason, {}});
      same->second.push_back(action->name);
      noted.push_back(action);
    }
  for (const auto &[reason, names] : byReason)
    leftOut.push_back("left out " + llvm::join(names, ", ") +
                      ": not legal on this IR where the plan reached " +
                      (names.size() == 1 ? "it" : "them") +
                      (reason.empty() ? "" : ": " + reason));
}

llvm::Expected<std::string> resolveNamedPipeline(mlir::ModuleOp module, llvm::StringRef spec,
                                                 unsigned *llvmOptLevel,
                                                 std::vector<std::string> *leftOut) {
  spec = spec.trim();
  if (!isNamedPipeline(spec))
    return spec.str();
  // Planned on a copy, prepared as a selection is: masks are evaluated on
  // the IR each action produces.
  mlir::OwningOpRef<mlir::ModuleOp> scratch = module.clone();
  auto preparation = prepareForStages(*scratch);
  if (!preparation)
    return preparation.takeError();
  std::vector<const Action *> actions;
  if (spec == "default" || spec.starts_with("expert:") || spec.starts_with("plan:")) {
    llvm::Expected<std::vector<const Action *>> plan = std::vector<const Action *>();
    if (spec == "default") {
      plan = planDefault(*scratch, leftOut);
    } else if (spec.consume_front("expert:")) {
      plan = planExpert(*scratch, spec, leftOut);
    } else {
      spec.consume_front("plan:");
      auto preferences = parseActionList(spec);
      if (!preferences)
        return preferences.takeError();
      std::vector<const Action *> ruledOut;
      llvm::DenseMap<const Action *, std::string> notLegal;
      plan = planSequence(*scratch, *preferences, leftOut, &ruledOut, &notLegal);
      if (plan && leftOut)
        noteUnreached(*preferences, *plan, std::move(ruledOut), notLegal, *leftOut);
    }
    if (!plan)
      return plan.takeError();
    actions = std::move(*plan);
  } else if (spec.consume_front("actions:")) {
    auto parsed = parseActionList(spec);
    if (!parsed)
      return parsed.takeError();
    actions = std::move(*parsed);
  }
  if (llvmOptLevel && llvm::any_of(actions, [](const Action *a) {
        return a->kind == ActionKind::Finish;
      }))
    *llvmOptLevel = llvmOptLevelFor(actions);
  auto pipeline = pipelineForActions(actions);
  if (!pipeline)
    return pipeline.takeError();
  return joinAfterPreparation(*preparation, *pipeline);
}

void useNamedPipelines(RunRequest &request) {
  request.resolvePipeline =
      [](mlir::ModuleOp module, llvm::StringRef spec,
         llvm::StringRef /*target: the baselines are the same for all*/)
      -> llvm::Expected<ResolvedPipeline> {
    unsigned level = 0;
    std::vector<std::string> leftOut;
    auto text = resolveNamedPipeline(module, spec, &level, &leftOut);
    if (!text)
      return text.takeError();
    ResolvedPipeline resolved{std::move(*text), std::nullopt};
    resolved.notes = std::move(leftOut);
    if (level)
      resolved.llvmOptLevel = level;
    // actions: are applied one by one, as `apply` and the policy apply
    // them: an action whose precondition refuses the IR it meets (where
    // MLIR 19 would miscompile) fails the run instead of running.
    if (llvm::StringRef list = spec.trim(); list.consume_front("actions:")) {
      auto actions = parseActionList(list);
      if (!actions)
        return actions.takeError();
      resolved.transform = [actions = std::move(*actions)](mlir::ModuleOp module) {
        return applyActionsInTurn(module, actions);
      };
    }
    return resolved;
  };
}

} // namespace mqss
