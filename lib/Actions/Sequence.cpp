//===- Sequence.cpp - Action sequences as pipelines, and their application -===//

#include "mqss/Actions/Sequence.h"

#include "mqss/IR/Diagnostics.h"
#include "mqss/IR/Summary.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/TemporaryFile.h"
#include "mqss/Store/Store.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace mqss {

#include "ScheduleLibrary.inc"

char ActionRefused::ID = 0;

llvm::StringRef scheduleLibrarySource() { return kScheduleLibrarySource; }

static llvm::Error writeScheduleLibrary(const std::string &path);

llvm::Expected<std::string> scheduleLibraryPath() {
  // Every printed pipeline asks for the path: after the first time, one
  // stat (the file may have been removed from the cache since) instead of
  // creating directories and hashing the library again.
  static std::mutex mutex;
  static std::string known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!known.empty() && llvm::sys::fs::exists(known))
      return known;
  }
  std::string dir = cacheDirectory();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create the cache directory '" + dir +
                                           "': " + ec.message());
  std::string path = llvm::formatv("{0}/schedules-{1:x16}.mlir", dir,
                                   llvm::xxh3_64bits(scheduleLibrarySource()))
                         .str();
  // Checked once per process, and written again unless it holds this
  // library: a file cut short or changed since would lose every schedule
  // action of every later run, each with only a warning.
  auto cached = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!cached || (*cached)->getBuffer() != scheduleLibrarySource()) {
    if (llvm::Error error = writeScheduleLibrary(path))
      return std::move(error);
  }
  std::lock_guard<std::mutex> lock(mutex);
  known = path;
  return path;
}

static llvm::Error writeScheduleLibrary(const std::string &path) {
  // Concurrent writers never expose a half-written file.
  return writeFileAtomically(path, scheduleLibrarySource());
}

/// The pipeline element that preloads a transform library, up to its paths.
static constexpr llvm::StringLiteral kPreload = "transform-preload-library{";

static std::string preloadElement(llvm::StringRef libraryPath) {
  return (kPreload + "transform-library-paths=" + libraryPath + "}").str();
}

bool preloadsLibrary(llvm::StringRef pipeline) { return pipeline.contains(kPreload); }

llvm::Expected<std::string> pipelineForActions(llvm::ArrayRef<const Action *> actions) {
  std::string pipeline;
  bool usesSchedules = llvm::any_of(
      actions, [](const Action *a) { return a->kind == ActionKind::Schedule; });
  if (usesSchedules) {
    auto path = scheduleLibraryPath();
    if (!path)
      return path.takeError();
    pipeline = preloadElement(*path);
  }
  for (const Action *action : actions) {
    std::string fragment = action->pipelineFragment();
    if (fragment.empty())
      continue;
    pipeline += (pipeline.empty() ? "" : ",") + fragment;
  }
  return pipeline;
}

/// Whether \p op is an elementwise op (arith.addf, math.exp, ...) on whole
/// tensors, as upstream tests and hand-written IR write them: one-shot
/// bufferization cannot handle it, so convert-elementwise-to-linalg makes
/// it a linalg.generic first.
static bool isElementwiseOnTensors(mlir::Operation *op) {
  return op->hasTrait<mlir::OpTrait::Elementwise>() &&
         llvm::any_of(op->getResultTypes(), llvm::IsaPred<mlir::RankedTensorType>);
}

/// Whether \p op is a linalg.softmax on tensors (decompose_softmax).
static bool isTensorSoftmax(mlir::Operation *op) {
  auto softmax = mlir::dyn_cast<mlir::linalg::SoftmaxOp>(op);
  return softmax && softmax.hasPureTensorSemantics();
}

/// Whether \p op is one the schedule library rewrites (libraryRewrites).
static bool needsLibraryRewrite(mlir::Operation *op) {
  return mlir::isa<mlir::tensor::ConcatOp, mlir::tensor::PackOp, mlir::tensor::UnPackOp>(op) ||
         isTensorSoftmax(op) || isIdentityTranspose(op);
}

/// Whether some op of \p module satisfies \p predicate (stops at the first).
static bool anyOp(mlir::ModuleOp module, llvm::function_ref<bool(mlir::Operation *)> predicate) {
  return module
      .walk([&](mlir::Operation *op) {
        return predicate(op) ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

/// The passes that take \p module to linalg on tensors.
static std::string preparationPasses(mlir::ModuleOp module) {
  std::string passes = frontendLoweringPipeline(module);
  if (anyOp(module, isElementwiseOnTensors))
    passes = joinPipelines(passes, "func.func(convert-elementwise-to-linalg)");
  return passes;
}

/// The schedule library's rewrites of the ops in \p module that MLIR 19
/// cannot bufferize or lower to loops.
static std::string libraryRewrites(mlir::ModuleOp module) {
  std::string rewrites;
  if (containsOp<mlir::tensor::ConcatOp>(module))
    rewrites = "transform-interpreter{entry-point=decompose_concat}";
  bool packs = containsOp<mlir::tensor::PackOp>(module) || containsOp<mlir::tensor::UnPackOp>(module);
  if (packs) // ends with generalize_identity_transposes
    rewrites = joinPipelines(rewrites, "transform-interpreter{entry-point=lower_pack_unpack}");
  else if (anyOp(module, isIdentityTranspose))
    rewrites =
        joinPipelines(rewrites, "transform-interpreter{entry-point=generalize_identity_transposes}");
  if (anyOp(module, isTensorSoftmax))
    rewrites = joinPipelines(rewrites, "transform-interpreter{entry-point=decompose_softmax}");
  return rewrites;
}

bool needsPreparation(mlir::ModuleOp module) {
  // On /v1/select's in-process path: one walk for the per-op conditions.
  return !frontendLoweringPipeline(module).empty() ||
         anyOp(module, [](mlir::Operation *op) {
           return isElementwiseOnTensors(op) || needsLibraryRewrite(op);
         });
}

bool hasUnbufferizableTensorOp(mlir::ModuleOp module) {
  auto isTensor = [](mlir::Type type) { return mlir::isa<mlir::TensorType>(type); };
  return anyOp(module, [&](mlir::Operation *op) {
    return (llvm::any_of(op->getOperandTypes(), isTensor) ||
            llvm::any_of(op->getResultTypes(), isTensor)) &&
           !mlir::isa<mlir::bufferization::BufferizableOpInterface>(op);
  });
}

llvm::Expected<std::string> prepareForStages(mlir::ModuleOp module) {
  std::string preparation = preparationPasses(module);
  if (!preparation.empty())
    if (llvm::Error error = applyPipeline(module, preparation))
      return std::move(error);
  // After the passes: TOSA's lowering makes tensor.concat ops, for one.
  std::string rewrites = libraryRewrites(module);
  if (rewrites.empty())
    return preparation;
  auto path = scheduleLibraryPath();
  if (!path)
    return path.takeError();
  // The preload goes first, where applyPipeline and mlir-opt both expect it.
  std::string preload = preloadElement(*path);
  if (llvm::Error error = applyPipeline(module, preload + "," + rewrites))
    return std::move(error);
  return preload + "," + joinPipelines(preparation, rewrites);
}

/// Takes a leading preload of the schedule library off \p pipeline.
static std::string takeLeadingPreload(llvm::StringRef &pipeline) {
  if (!pipeline.starts_with(kPreload))
    return "";
  size_t end = pipeline.find('}') + 1;
  std::string preload = pipeline.take_front(end).str();
  pipeline = pipeline.drop_front(end);
  pipeline.consume_front(",");
  return preload;
}

std::string joinAfterPreparation(llvm::StringRef preparation, llvm::StringRef pipeline) {
  // The library is preloaded once, first, where applyPipeline and mlir-opt
  // both expect it: also when only the actions use a schedule and the
  // preparation is a pass (convert-elementwise-to-linalg, TOSA's lowering).
  // Loading it changes no IR, so hoisting it changes nothing else.
  std::string preload = takeLeadingPreload(preparation);
  std::string actionsPreload = takeLeadingPreload(pipeline);
  if (preload.empty())
    preload = actionsPreload;
  return joinPipelines(preload, joinPipelines(preparation, pipeline));
}

unsigned llvmOptLevelFor(llvm::ArrayRef<const Action *> actions) {
  for (const Action *action : actions)
    if (action->kind == ActionKind::Finish)
      return action->llvmOptLevel;
  return 3;
}

bool refuses(const Action &action, mlir::ModuleOp module) {
  if (!action.precondition)
    return false;
  llvm::Error error = action.precondition(module);
  bool refused = static_cast<bool>(error);
  llvm::consumeError(std::move(error));
  return refused;
}

llvm::Error applyAction(mlir::ModuleOp module, const Action &action) {
  if (action.kind == ActionKind::Finish)
    return llvm::Error::success();
  if (action.precondition)
    if (llvm::Error error = action.precondition(module))
      return llvm::make_error<ActionRefused>(llvm::toString(std::move(error)));
  // With the schedule library's preload, which applyPipeline performs once
  // per context.
  auto pipeline = pipelineForActions({&action});
  if (!pipeline)
    return pipeline.takeError();
  if (llvm::Error error = applyPipeline(module, *pipeline))
    return error;
  // A loop an upstream pass left without bounds copies nothing, and
  // lowering it crashes: the action failed, though the pass did not say so.
  if (action.stage == Stage::Loops)
    if (mlir::Operation *loop = affineLoopWithoutBounds(module)) {
      std::optional<std::string> where = fileLineColumn(loop->getLoc());
      return llvm::make_error<PipelineError>(
          PipelineFailure::PassFailed,
          (action.body + " left an affine.for without bounds" +
           (where ? " at " + *where + " (a copy loop takes the location of the access it copies)"
                  : std::string()) +
           " (an upstream bug: the loop does nothing, and lowering it crashes)\n")
              .str());
    }
  return llvm::Error::success();
}

std::string describeActionError(const Action &action, llvm::Error error) {
  bool refused = error.isA<ActionRefused>();
  return "action " + action.name.str() + (refused ? " refused: " : " failed: ") +
         llvm::toString(std::move(error));
}

llvm::Error applyActionsInTurn(mlir::ModuleOp module, llvm::ArrayRef<const Action *> actions) {
  if (auto preparation = prepareForStages(module); !preparation)
    return preparation.takeError();
  for (const Action *action : actions) {
    // Refused where its legality rule keeps it from IR it gets wrong, as
    // the policy and the plans never take it there.
    bool unsafe = false;
    std::string why = illegalBecause(*action, summarize(module), &unsafe);
    if (unsafe)
      return llvm::make_error<PipelineError>(PipelineFailure::PassFailed,
                                             "action " + action->name.str() +
                                                 " refused: " + why);
    if (llvm::Error error = applyAction(module, *action))
      return llvm::make_error<PipelineError>(PipelineFailure::PassFailed,
                                             describeActionError(*action, std::move(error)));
  }
  return llvm::Error::success();
}

} // namespace mqss
