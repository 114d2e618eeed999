//===- Baselines.cpp - Named pipelines: naive, default, expert:<family> ----===//

#include "mqss/Actions/Baselines.h"

#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Pipeline.h"

#include "llvm/ADT/STLExtras.h"
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
     {"loops.unroll-jam-4", "loops.vectorize-8", "loops.canonicalize"}},
    {"conv",
     {"tensor.bufferize"},
     {"linalg.elementwise-8x32", "linalg.to-affine"},
     {"loops.vectorize-8", "loops.canonicalize"}},
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

// The best single sequence found over the train split (see docs/Baselines.md).
const llvm::StringLiteral kDefaultSequence[] = {
    "tensor.bufferize", "linalg.to-affine", "loops.vectorize-8", "loops.canonicalize"};

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

llvm::Expected<std::vector<const Action *>> planExpert(mlir::ModuleOp module,
                                                       llvm::StringRef family) {
  const ExpertRules *rules = findExpert(family);
  if (!rules)
    return unknownFamily(family);
  std::vector<const Action *> plan;
  // Each stage's list is tried in order; an action that is illegal now is
  // skipped, one that applies is never repeated. The stage's last entry
  // normally leaves the stage, and the loop then continues in the next one.
  for (int guard = 0; guard < 32; ++guard) {
    IRSummary summary = summarize(module);
    Stage stage = summary.stage();
    const auto &preferences = stage == Stage::Tensor   ? rules->tensor
                              : stage == Stage::Linalg ? rules->linalg
                                                       : rules->loops;
    const Action *next = nullptr;
    for (llvm::StringRef name : preferences) {
      const Action *action = lookupAction(name);
      if (action && !llvm::is_contained(plan, action) && action->legal(summary)) {
        next = action;
        break;
      }
    }
    if (!next)
      break;
    if (llvm::Error error = applyAction(module, *next))
      return std::move(error);
    plan.push_back(next);
  }
  return plan;
}

bool isNamedPipeline(llvm::StringRef spec) {
  spec = spec.trim();
  return spec == "default" || spec.starts_with("expert:") || spec.starts_with("actions:");
}

llvm::Error validateNamedPipeline(llvm::StringRef spec) {
  spec = spec.trim();
  if (spec.consume_front("expert:"))
    return findExpert(spec) ? llvm::Error::success() : unknownFamily(spec);
  if (spec.consume_front("actions:"))
    return parseActionList(spec).takeError();
  return llvm::Error::success();
}

llvm::Expected<std::string> resolveNamedPipeline(mlir::ModuleOp module,
                                                 llvm::StringRef spec,
                                                 unsigned *llvmOptLevel) {
  spec = spec.trim();
  std::vector<const Action *> actions;
  if (spec == "default") {
    actions = defaultSequence();
  } else if (spec.consume_front("expert:")) {
    mlir::OwningOpRef<mlir::ModuleOp> scratch = module.clone();
    auto plan = planExpert(*scratch, spec);
    if (!plan)
      return plan.takeError();
    actions = std::move(*plan);
  } else if (spec.consume_front("actions:")) {
    auto parsed = parseActionList(spec);
    if (!parsed)
      return parsed.takeError();
    actions = std::move(*parsed);
  } else {
    return spec.str();
  }
  if (llvmOptLevel && llvm::any_of(actions, [](const Action *a) {
        return a->kind == ActionKind::Finish;
      }))
    *llvmOptLevel = llvmOptLevelFor(actions);
  return pipelineForActions(actions);
}

void useNamedPipelines(RunRequest &request) {
  request.resolvePipeline =
      [](mlir::ModuleOp module, llvm::StringRef spec) -> llvm::Expected<ResolvedPipeline> {
    unsigned level = 0;
    auto text = resolveNamedPipeline(module, spec, &level);
    if (!text)
      return text.takeError();
    ResolvedPipeline resolved{std::move(*text), std::nullopt};
    if (level)
      resolved.llvmOptLevel = level;
    return resolved;
  };
}

} // namespace mqss
