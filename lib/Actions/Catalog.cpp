//===- Catalog.cpp - The action catalog ------------------------------------===//

#include "mqss/Actions/Catalog.h"

#include "mqss/IR/Diagnostics.h"
#include "mqss/Runtime/Pipeline.h"

#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/NestedMatcher.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

namespace mqss {

llvm::StringRef actionCategoryName(ActionCategory category) {
  switch (category) {
  case ActionCategory::Cleanup: return "cleanup";
  case ActionCategory::Fuse: return "fuse";
  case ActionCategory::Layout: return "layout";
  case ActionCategory::Tile: return "tile";
  case ActionCategory::Unroll: return "unroll";
  case ActionCategory::Vectorize: return "vectorize";
  case ActionCategory::Schedule: return "schedule";
  case ActionCategory::Lower: return "lower";
  case ActionCategory::Bufferize: return "bufferize";
  case ActionCategory::Memory: return "memory";
  case ActionCategory::Finish: return "finish";
  }
  return "cleanup";
}

//===----------------------------------------------------------------------===//
// Legality predicates
//===----------------------------------------------------------------------===//

namespace {
using Kind = LinalgOpInfo::Kind;

bool always(const IRSummary &) { return true; }
bool hasLinalg(const IRSummary &s) { return s.numLinalg() > 0; }
/// A named op linalg-generalize-named-ops rewrites (not linalg.map: the
/// policy took the generalize actions, which did nothing, until it ran out
/// of steps on IREE-style tiles of linalg.map).
bool hasGeneralizable(const IRSummary &s) { return s.numGeneralizable > 0; }
bool hasGenericLinalg(const IRSummary &s) { return s.numGenericLinalg > 0; }
bool hasLoops(const IRSummary &s) { return s.numAffineFor + s.numScfFor + s.numParallelLoops > 0; }
bool hasAffineLoops(const IRSummary &s) { return s.numAffineFor > 0; }
/// Affine loops whose every access is a stream (IRSummary's
/// numAffineMemoryOpsWithReuse): element i of each buffer at iteration i,
/// no reuse. Tiling has nothing to keep in cache there, and LLVM then
/// vectorized across the tiles with gathers and scatters: a 1-D stream
/// tiled by 32 ran 25x slower than untiled on AVX-512, a 2-D one 3x (and
/// 2.4x with AVX2). LLVM vectorizes a stream itself; the super-vectorizer's
/// code for one ran 0.56-1.02x of it.
bool streamsOnly(const IRSummary &s) {
  return s.numAffineMemoryOps > 0 && s.numAffineMemoryOpsWithReuse == 0 &&
         s.opCount("memref.load") + s.opCount("memref.store") == 0;
}
bool tilable(const IRSummary &s) { return hasAffineLoops(s) && !streamsOnly(s); }
std::string streamsFailing(const IRSummary &s) {
  return streamsOnly(s) ? "every affine access is a stream" : "";
}
/// \p hazard as a precondition's answer: where, and why.
llvm::Error refusedFor(std::optional<PassHazard> hazard) {
  if (!hazard)
    return llvm::Error::success();
  std::optional<std::string> where = fileLineColumn(hazard->op->getLoc());
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (where ? *where + ": " : std::string()) + hazard->why);
}
/// MLIR 19's affine-loop-tile and affine-loop-unroll-jam reorder iterations
/// without checking dependences: an in-place Seidel stencil came out wrong
/// under both (found on C frontends' output).
llvm::Error keepsDependences(mlir::ModuleOp module) {
  if (std::optional<PassHazard> hazard = affineAliasHazard(module, NestScope::Band))
    return refusedFor(hazard);
  mlir::Operation *nest = affineNestWithBackwardDependence(module);
  if (!nest)
    return llvm::Error::success();
  std::optional<std::string> where = fileLineColumn(nest->getLoc());
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "a dependence in the loop nest" + (where ? " at " + *where : std::string()) +
          " may run backwards along one of its loops (or is one MLIR 19 cannot analyse): "
          "tiling or unroll-and-jam would compute something else");
}
/// A loop bound naming an enclosing loop's induction variable it does not
/// use (`0 to affine_map<(d0) -> (8)>(%i)`): MLIR 19's affine-loop-tile
/// makes the tiled bound use it before its definition, invalid IR. Found by
/// a random loop-program generator.
std::optional<PassHazard> unusedInductionVariableInBound(mlir::ModuleOp module) {
  std::optional<PassHazard> found;
  module.walk([&](mlir::affine::AffineForOp loop) {
    for (auto [map, operands] :
         {std::pair{loop.getLowerBoundMap(), loop.getLowerBoundOperands()},
          std::pair{loop.getUpperBoundMap(), loop.getUpperBoundOperands()}})
      for (auto [position, operand] : llvm::enumerate(operands)) {
        bool used = position < map.getNumDims()
                        ? map.isFunctionOfDim(position)
                        : map.isFunctionOfSymbol(position - map.getNumDims());
        if (!used && mlir::affine::getForInductionVarOwner(operand))
          found = PassHazard{loop, "this loop's bound names an outer loop's induction "
                                   "variable it does not use: MLIR 19's affine-loop-tile "
                                   "would make invalid IR of it (canonicalize first)"};
      }
    return found ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
  });
  return found;
}
/// affine-loop-tile where it keeps the dependences and makes valid IR.
llvm::Error tilesValidly(mlir::ModuleOp module) {
  if (llvm::Error error = keepsDependences(module))
    return error;
  return refusedFor(unusedInductionVariableInBound(module));
}
/// And, for unroll-and-jam of an imperfect nest, no dependence between the
/// loop's iterations at all (see affineUnrollJamHazard).
llvm::Error jamsSafely(mlir::ModuleOp module) {
  if (llvm::Error error = keepsDependences(module))
    return error;
  return refusedFor(affineUnrollJamHazard(module));
}
/// MLIR 19's unrollers mis-map a yield that forwards an iter_arg (a rotation
/// of loop-carried values, as in recursive filters): found by the sweep; or
/// the induction variable (the last copy yields the first copy's index: 14
/// for 15, found by a random loop-program generator).
/// And where two iter_args start from one value, the cleanup loop of an
/// unroll with a remainder starts both from the same result (found by an
/// action-level scan, on buddy-mlir's unrolled sgemm). And on a loop
/// `4 to %n` with %n below 4, the cleanup loop starts at (%n floordiv 4) * 4,
/// below the lower bound, and runs iterations the loop never would (found by
/// a random loop-program generator).
bool unrollable(const IRSummary &s) {
  return s.numAffineFor > 0 && s.numAffineForYieldingArguments == 0 &&
         s.numAffineForSharedInits == 0 && s.numAffineForMaybeEmptyFromAbove == 0;
}
bool unrollJammable(const IRSummary &s) {
  return s.maxAffineDepth >= 2 && s.numAffineForYieldingArguments == 0 &&
         s.numAffineForSharedInits == 0 && s.numAffineForMaybeEmptyFromAbove == 0;
}
/// affine-loop-fusion and affine-data-copy-generate track memref dependences
/// only; a value carried out of a loop (a scalar reduction) is not one. The
/// sweep also found fusion wrong across triangular nests (correlation), and
/// on a nest writing a whole row per iteration (an unrolled fill): it moved
/// the row's stores into the consumer's inner loop, re-zeroing what that had
/// updated.
bool hasAffineSiblings(const IRSummary &s) {
  return s.maxTopLevelAffineLoops >= 2 && s.numAffineForWithResults == 0 &&
         s.allAffineBoundsConstant && s.numAffineStoresBelowRank == 0;
}
/// A copy of \p module after \p pipeline; null when the pipeline fails or
/// crashes on it (applying the action will say so).
mlir::OwningOpRef<mlir::ModuleOp> copyAfter(mlir::ModuleOp module, llvm::StringRef pipeline) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  if (llvm::Error error = applyPipeline(*copy, pipeline)) {
    llvm::consumeError(std::move(error));
    return nullptr;
  }
  return copy;
}
/// How many times more work MLIR 19's affine-loop-fusion may leave a
/// function with. Its cost model allows 30% of recomputation.
constexpr double kMaxFusionWorkGrowth = 2;
/// A nest MLIR 19's affine-loop-fusion would fuse into a consumer's loop
/// and recompute there, its result unchanged but its work multiplied: a
/// 64^3 max-reduction read by a 64^3 matmul went into the matmul's
/// innermost loop, whole, 6,000x slower than naive (found by a random
/// linalg program generator). Found by running the pass on a copy and
/// counting the ops each function executes (executedOps) before and after.
std::optional<PassHazard> fusionRecomputeHazard(mlir::ModuleOp module) {
  std::vector<std::pair<mlir::func::FuncOp, double>> before;
  for (auto function : module.getOps<mlir::func::FuncOp>())
    if (std::optional<double> ops = executedOps(function))
      before.emplace_back(function, *ops);
  if (before.empty())
    return std::nullopt;
  mlir::OwningOpRef<mlir::ModuleOp> copy = copyAfter(module, "func.func(affine-loop-fusion)");
  if (!copy)
    return std::nullopt;
  mlir::SymbolTable fused(*copy);
  for (auto [function, ops] : before) {
    auto after = fused.lookup<mlir::func::FuncOp>(function.getSymName());
    std::optional<double> opsAfter = after ? executedOps(after) : std::nullopt;
    if (!opsAfter || *opsAfter <= kMaxFusionWorkGrowth * ops)
      continue;
    // The nest recomputed: a top-level loop whose copy sits in another
    // nest's loop (the copies keep their locations).
    mlir::Operation *nest = function;
    for (auto loop : function.getBody().getOps<mlir::affine::AffineForOp>()) {
      bool movedIn = after.walk([&](mlir::affine::AffineForOp inner) {
        auto outer = inner->getParentOfType<mlir::affine::AffineForOp>();
        return inner.getLoc() == loop.getLoc() && outer && outer.getLoc() != loop.getLoc()
                   ? mlir::WalkResult::interrupt()
                   : mlir::WalkResult::advance();
      }).wasInterrupted();
      if (movedIn) {
        nest = loop;
        break;
      }
    }
    return PassHazard{nest, llvm::formatv("MLIR 19's affine-loop-fusion would fuse this nest "
                                          "into a consumer's loop and recompute it there: "
                                          "the function would execute {0:f0}x the operations",
                                          *opsAfter / ops)
                                .str()};
  }
  return std::nullopt;
}
/// And, checked on the IR itself: an in-place update that a sibling nest
/// uses, and loops of a step other than 1 (see affineFusionHazard); and
/// where the fusion would multiply the work (see fusionRecomputeHazard).
llvm::Error fusesSafely(mlir::ModuleOp module) {
  if (std::optional<PassHazard> hazard = affineFusionHazard(module))
    return refusedFor(hazard);
  if (std::optional<PassHazard> hazard = affineAliasHazard(module, NestScope::Siblings))
    return refusedFor(hazard);
  return refusedFor(fusionRecomputeHazard(module));
}
/// The canonicalizer on tensors only where it would not misplace a padded
/// insert (see insertPadIntoFillHazard).
llvm::Error canonicalizesTensorsSafely(mlir::ModuleOp module) {
  return refusedFor(insertPadIntoFillHazard(module));
}
/// Block packing only where the zeros it pads with add nothing (see
/// blockPackPaddingHazard).
llvm::Error padsNeutrally(mlir::ModuleOp module) {
  return refusedFor(blockPackPaddingHazard(module));
}
/// The linalg stage's schedules only where no op's output overlaps its
/// inputs (see linalgOperandOverlapHazard).
llvm::Error operandsDoNotOverlap(mlir::ModuleOp module) {
  return refusedFor(linalgOperandOverlapHazard(module));
}
/// affine-data-copy-generate only where every dependence is between affine
/// accesses through one name (see affineAliasHazard).
/// And where it would write back elements the kernel never wrote (see
/// affineCopyOutHazard).
llvm::Error copiesEveryAccess(mlir::ModuleOp module) {
  if (std::optional<PassHazard> hazard = affineAliasHazard(module, NestScope::Each))
    return refusedFor(hazard);
  return refusedFor(affineCopyOutHazard(module));
}
/// What would go wrong where MLIR 19's affine-super-vectorize vectorizes
/// \p loop by \p width lanes (see vectorizedLoopHazard).
std::optional<PassHazard> hazardVectorizing(mlir::affine::AffineForOp loop, int64_t width) {
  std::string vectorized = llvm::formatv("MLIR 19's affine-super-vectorize would vectorize "
                                         "this loop by {0} lanes (the loop it takes in "
                                         "its nest), ",
                                         width);
  std::optional<uint64_t> trips = mlir::affine::getConstantTripCount(loop);
  if (!trips || loop.getStepAsInt() != 1 || *trips % width != 0)
    return PassHazard{loop, vectorized + (trips ? llvm::formatv("which runs {0} iterations "
                                                                "of step {1}: it would "
                                                                "compute lanes past its end",
                                                                *trips, loop.getStepAsInt())
                                                      .str()
                                                : std::string("whose trip count is known only "
                                                              "at run time: it would compute "
                                                              "lanes past its end"))};
  std::optional<PassHazard> hazard;
  loop->walk([&](mlir::Operation *access) {
    bool store = llvm::isa<mlir::affine::AffineWriteOpInterface>(access);
    if (!store && !llvm::isa<mlir::affine::AffineReadOpInterface>(access))
      return mlir::WalkResult::advance();
    AccessMotion motion = accessMotionAlong(access, loop);
    if (!motion.irregular.empty())
      hazard = PassHazard{access, vectorized + "and this access " + motion.irregular +
                                      " along it, where the vectorizer reads and writes "
                                      "contiguous lanes"};
    else if (store && !motion.moves)
      hazard = PassHazard{access, vectorized + "and this store does not move along it: the "
                                               "vectorizer fails on it and corrupts the heap"};
    return hazard ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
  });
  return hazard;
}

/// The loops MLIR 19's affine-super-vectorize (one dimension) vectorizes
/// and what would go wrong there. Of the parallel loops whose body it can
/// vectorize it takes, in each nest, the innermost (it tries inner matches
/// first): an outer loop where the inner one carries a dependence, or a
/// tile loop where no inner loop qualifies. It assumes that loop runs a
/// multiple of the vector width, that every access moves by one element
/// along it, and that every store moves at all (an invariant one becomes a
/// broadcast transfer_write, which fails to verify, and the pass's failure
/// path corrupts the heap). Found by a random loop-program generator: an
/// outer loop of 10 vectorized by 8, `a[2 * i]` read as contiguous lanes.
std::optional<PassHazard> vectorizedLoopHazard(mlir::ModuleOp module, int64_t width) {
  // The dependence analysis reports what it cannot analyse (a memref with a
  // non-identity layout) as errors, and then answers conservatively.
  mlir::ScopedDiagnosticHandler quiet(module.getContext(),
                                      [](mlir::Diagnostic &) { return mlir::success(); });
  std::vector<mlir::affine::AffineForOp> candidates;
  llvm::SmallPtrSet<mlir::Operation *, 16> matching;
  {
    mlir::affine::NestedPatternContext patterns;
    auto transfers = mlir::affine::matcher::Op([](mlir::Operation &op) {
      return llvm::isa<mlir::vector::TransferReadOp, mlir::vector::TransferWriteOp>(op);
    });
    module.walk([&](mlir::affine::AffineForOp loop) {
      int memRefDim = -1;
      if (mlir::affine::isLoopParallel(loop) &&
          mlir::affine::isVectorizableLoopBody(loop, &memRefDim, transfers)) {
        candidates.push_back(loop);
        matching.insert(loop);
      }
    });
  }
  for (mlir::affine::AffineForOp loop : candidates) {
    bool innerMatch = loop->walk([&](mlir::affine::AffineForOp inner) {
                            return inner != loop && matching.contains(inner)
                                       ? mlir::WalkResult::interrupt()
                                       : mlir::WalkResult::advance();
                          }).wasInterrupted();
    if (innerMatch)
      continue;
    if (std::optional<PassHazard> hazard = hazardVectorizing(loop, width))
      return hazard;
  }
  if (candidates.empty())
    return std::nullopt;
  // Which loops it takes is its own choice (an inner loop whose induction
  // variable a computation uses fails, and it takes the outer one: found by
  // a random loop-program generator, a store at `[%j, 32 - %i]` written as
  // contiguous lanes along %i). So it runs on a copy, whose loops match the
  // module's in walk order, and a loop whose step it multiplied is checked.
  // (Where it would corrupt the heap on an outer loop, applying it would.)
  std::vector<mlir::affine::AffineForOp> loops, vectorizedLoops;
  module.walk([&](mlir::affine::AffineForOp loop) { loops.push_back(loop); });
  mlir::OwningOpRef<mlir::ModuleOp> copy = copyAfter(
      module, llvm::formatv("func.func(affine-super-vectorize{{virtual-vector-size={0}})", width)
                  .str());
  if (!copy)
    return std::nullopt;
  copy->walk([&](mlir::affine::AffineForOp loop) { vectorizedLoops.push_back(loop); });
  // Loops it added or removed leave the copy's loops unmatched: which it
  // vectorized cannot be told, so none is taken as checked.
  if (vectorizedLoops.size() != loops.size())
    return PassHazard{candidates.front(),
                      llvm::formatv("MLIR 19's affine-super-vectorize would vectorize by {0} "
                                    "lanes and change the number of loops: which loops it "
                                    "takes cannot be checked",
                                    width)
                          .str()};
  for (auto [loop, after] : llvm::zip(loops, vectorizedLoops))
    if (after.getStepAsInt() != loop.getStepAsInt())
      if (std::optional<PassHazard> hazard = hazardVectorizing(loop, width))
        return hazard;
  return std::nullopt;
}

/// affine-super-vectorize only where no buffer is reached under two names,
/// and where the loops it vectorizes run whole vectors of contiguous lanes
/// (see vectorizedLoopHazard).
template <int64_t Width>
llvm::Error vectorizesEveryAccess(mlir::ModuleOp module) {
  if (std::optional<PassHazard> hazard =
          affineAliasHazard(module, NestScope::Each, /*nonAffine=*/false))
    return refusedFor(hazard);
  return refusedFor(vectorizedLoopHazard(module, Width));
}
/// Whether \p loop may run zero times: a bound known only at run time, or
/// bounds that may meet (see alwaysRuns).
bool mayRunZeroTimes(mlir::affine::AffineForOp loop) { return !alwaysRuns(loop); }

/// The loops around \p op that may run zero times, innermost first.
llvm::SmallVector<mlir::Operation *> loopsThatMayNotRun(mlir::Operation *op) {
  llvm::SmallVector<mlir::Operation *> loops;
  for (auto loop = op->getParentOfType<mlir::affine::AffineForOp>(); loop;
       loop = loop->getParentOfType<mlir::affine::AffineForOp>())
    if (mayRunZeroTimes(loop))
      loops.push_back(loop);
  return loops;
}

/// MLIR 19's affine-loop-invariant-code-motion hoists out of loops whatever
/// it finds invariant, stores and divisions included, whether or not the
/// loop runs: a store of a value computed in a loop that runs zero times
/// then happens anyway, and a division by what the loop's bound guarded
/// traps. It moves ops step by step (a constant, then the store using it;
/// an inner loop's, then the inner loop into the outer loop's body), so
/// which ops move is found by running it on a copy: a store, or an op that
/// may not run speculatively (a division), that left a loop that may run
/// zero times is refused, naming the op.
std::optional<PassHazard> licmZeroTripHazard(mlir::ModuleOp module) {
  auto mustStay = [](mlir::Operation *op) {
    if (op->getNumRegions() > 0 || llvm::isa<mlir::affine::AffineReadOpInterface>(op))
      return false;
    return llvm::isa<mlir::affine::AffineWriteOpInterface>(op) || !mlir::isSpeculatable(op);
  };
  // Such ops of the module, by their place in walk order, which the copy's
  // ops share: only then is the module copied.
  std::vector<mlir::Operation *> originals;
  std::vector<size_t> watched;
  module.walk([&](mlir::Operation *op) {
    if (mustStay(op) && !loopsThatMayNotRun(op).empty())
      watched.push_back(originals.size());
    originals.push_back(op);
  });
  if (watched.empty())
    return std::nullopt;
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  std::vector<mlir::Operation *> copies;
  copy->walk([&](mlir::Operation *op) { copies.push_back(op); });
  std::vector<llvm::SmallVector<mlir::Operation *>> loopsBefore;
  for (size_t index : watched)
    loopsBefore.push_back(loopsThatMayNotRun(copies[index]));
  if (llvm::Error error =
          applyPipeline(*copy, "func.func(affine-loop-invariant-code-motion)")) {
    // It fails or crashes on this IR: applying the action will say so.
    llvm::consumeError(std::move(error));
    return std::nullopt;
  }
  for (auto [index, loops] : llvm::zip(watched, loopsBefore))
    for (mlir::Operation *loop : loops)
      if (!loop->isProperAncestor(copies[index]))
        return PassHazard{originals[index],
                          "this op sits in a loop that may run zero times, and MLIR 19's "
                          "affine-loop-invariant-code-motion would hoist it out of that loop, "
                          "where it runs (a store, or a division that may trap) although the "
                          "loop would not have"};
  return std::nullopt;
}

/// affine-loop-invariant-code-motion only where it keeps what the loop
/// computes (see affineLicmHazard and licmZeroTripHazard).
llvm::Error licmKeepsLoops(mlir::ModuleOp module) {
  if (std::optional<PassHazard> hazard = affineLicmHazard(module))
    return refusedFor(hazard);
  return refusedFor(licmZeroTripHazard(module));
}
/// affine-data-copy-generate sizes its buffers without the loop step (a
/// copy-out loop `0 to 65` over 64 elements after unrolling: wrong output
/// and heap corruption) and emits empty bound maps on triangular nests
/// (lowering then crashes). Found by a random search over the suite. It also
/// sizes them by the accesses' ranges over the whole loop, ignoring an
/// affine.if that guards them (a stencil's border, a padded copy): it copies
/// past the buffer. Found by a sweep of others' IR. Where it cannot bound an
/// access (floordiv/mod in the index) it leaves a copy loop without bounds,
/// which applyAction() reports as the action's failure. A loop stepping by
/// more than 1 from a bound that is not constant (a tiled point loop
/// `%i to %i + 16 step 2`, from HLS unrolling or the catalog's own
/// unroll-jam then tiling) gets a buffer one row short and a copy loop past
/// it: heap corruption (found by a sweep of HLS-style kernels). On a nest
/// accumulating into a 0-d memref it crashes (a sweep of frontend kernels;
/// mlir-opt-19 too).
bool copyable(const IRSummary &s) {
  return s.maxAffineDepth >= 2 && s.numAffineForWithResults == 0 &&
         s.innermostAffineStepsOne && s.steppedLoopsHaveConstantBounds &&
         s.allAffineTripsConstant && s.opCount("affine.if") == 0 &&
         s.numRankZeroAffineMemoryOps == 0;
}
/// affine-scalrep forwards a store to later loads, looking for intervening
/// writes along affine.for back edges only: a store before an scf.for whose
/// body updates the location was forwarded into the body (a counter read 1
/// instead of 10), and inside scf.while the loop never ended. It also
/// misses a store or load in an affine.if's else branch, which MLIR 19's
/// dependence analysis gives the then branch's condition: it forwarded a
/// store past an else branch overwriting it (found by a random
/// loop-program generator).
bool scalarReplaceable(const IRSummary &s) {
  return s.numAffineMemoryOps > 0 && s.numAffineMemoryOpsInScfLoops == 0 &&
         !s.writtenMemRefAccessedInElse;
}
/// linalg-specialize-generic-ops matches contractions while ignoring unary
/// ops in the body (a negated or zero-extended product became a plain
/// linalg.matmul) and turns a body yielding its output into linalg.copy.
/// Only a contraction body of exactly multiply, add and yield is safe.
bool specializable(const IRSummary &s) {
  bool any = false;
  for (const LinalgOpInfo &op : s.linalgOps) {
    if (op.name != "linalg.generic")
      continue;
    any = true;
    if (op.yieldsOutputArgument || (op.kind == Kind::Contraction && op.bodyOps != 3))
      return false;
  }
  return any;
}
/// The super-vectorizer writes whole vectors: an innermost trip count that
/// is not a multiple of the width (or not constant, as in triangular loops)
/// makes it store past the loop bound. Found by the sweep on stencils.
/// A vector of i1 reaches memory as packed bits where the memref keeps a
/// byte per element, so reads see garbage: found on torch-style compare
/// masks (bench/kernels/other-frontends/12_i64_index_ops.mlir). It also
/// ignores a loop's step, reading contiguous lanes where a step-2 loop (left
/// by unrolling) touches every other element. On a tiled nest carrying a
/// value in iter_args (a row sum as C frontends raise it) it corrupts the
/// heap; glibc aborts, and recovering from that can deadlock in malloc. It
/// also takes an access moving by 2, -1 or i floordiv 2 elements per
/// iteration for a contiguous one (found by an action-level scan). And its
/// parallelism check gives an access in an affine.if's else branch the then
/// branch's condition: a loop copying A[j] to A[i + j] under `else` of
/// `i == 0` looked parallel (found by a random loop-program generator).
enum class VectorizerObstacle {
  None,
  NoAffineLoop,
  InnermostBoundsNotConstant,
  TripCountsNotMultiples,
  InnermostStepAboveOne,
  LoopResults,
  SubByteAccess,
  StridedAccess,
  WrittenBufferInElse,
};
/// The first of the super-vectorizer's conditions that fails on \p s.
VectorizerObstacle vectorizerObstacle(const IRSummary &s, int64_t width) {
  using O = VectorizerObstacle;
  if (s.numAffineFor == 0)
    return O::NoAffineLoop;
  if (!s.innermostAffineConstant)
    return O::InnermostBoundsNotConstant;
  if (s.innermostAffineTripGcd <= 0 || s.innermostAffineTripGcd % width != 0)
    return O::TripCountsNotMultiples;
  if (!s.innermostAffineStepsOne)
    return O::InnermostStepAboveOne;
  if (s.numAffineForWithResults > 0)
    return O::LoopResults;
  if (s.numSubByteAffineMemoryOps > 0)
    return O::SubByteAccess;
  if (s.numStridedAffineMemoryOps > 0)
    return O::StridedAccess;
  if (s.writtenMemRefAccessedInElse)
    return O::WrittenBufferInElse;
  return O::None;
}
template <int64_t Width>
bool vectorizable(const IRSummary &s) {
  return vectorizerObstacle(s, Width) == VectorizerObstacle::None;
}
/// Where the super-vectorizer could run and there is something for it to
/// gain: not on streams only (see streamsOnly).
template <int64_t Width>
bool vectorizesGainfully(const IRSummary &s) {
  return vectorizable<Width>(s) && !streamsOnly(s);
}
/// Where the rule above keeps the vectorizer from IR it would get wrong or
/// crash on (its obstacles), not only from streams it gains nothing on.
template <int64_t Width>
bool vectorizerBlocked(const IRSummary &s) {
  return hasAffineLoops(s) && !vectorizable<Width>(s);
}
bool hasScfFor(const IRSummary &s) { return s.numScfFor > 0; }
/// linalg-inline-scalar-operands takes an input with a constant indexing
/// map for an element of a tensor and extracts it: on a scalar input (what
/// linalg-generalize-named-ops makes of a linalg.fill's value) it builds an
/// invalid tensor.extract and crashes. Found by a sweep of other frontends'
/// IR (torch-mlir's fills).
bool scalarsInlinable(const IRSummary &s) {
  return s.numGenericLinalg > 0 && llvm::none_of(s.linalgOps, [](const LinalgOpInfo &op) {
           return op.hasScalarInput;
         });
}
/// scf-for-loop-peeling divides by the step: a step only known at run time
/// (0 where a caller leaves it so) ends the process with SIGFPE. On a loop
/// `4 to %n step 3` with %n below 4, the split point falls below the lower
/// bound, and the peeled loop runs an iteration the loop never would (found
/// by a random loop-program generator). On a loop counting in i32 it builds
/// an index-typed split point into the loop's bounds, which then fail to
/// verify (found by a sweep of upstream's tests: for-loop-peeling.mlir).
bool peelable(const IRSummary &s) {
  return s.numScfFor > 0 && s.allScfForStepsConstant && s.numScfForMaybeEmptyFromAbove == 0 &&
         s.numScfForNonIndex == 0;
}
/// One-shot bufferization across function boundaries fails on a called
/// declaration that returns a tensor ("cannot bufferize bodiless function
/// that returns a tensor"; upstream's Linalg bufferize.mlir).
bool bufferizable(const IRSummary &s) { return s.numCalledTensorDeclarations == 0; }
bool hasTensorEmpty(const IRSummary &s) { return s.numTensorEmpty > 0; }
bool hasTensorSlices(const IRSummary &s) {
  return s.opCount("tensor.extract_slice") + s.opCount("tensor.insert_slice") > 0;
}
bool hasCalls(const IRSummary &s) { return s.opCount("func.call") > 0; }
bool fusibleElementwise(const IRSummary &s) {
  return s.countLinalg(Kind::Elementwise) >= 1 && s.numLinalg() >= 2;
}
bool hasUnitDims(const IRSummary &s) {
  return llvm::any_of(s.linalgOps, [](const LinalgOpInfo &op) { return op.hasUnitDim; });
}

/// Every op named \p opName has static loop ranges divisible by \p tiles
/// (tile size 0 = untiled), and at least one such op exists: the schedule's
/// tiles are then full and vectorise without masks. An op with i1 operands
/// is not vectorised at all: its vector loads and stores would treat the
/// memref's bytes as packed bits (torch's compare masks gave wrong results).
/// Nor is one with complex operands, which MLIR 19 cannot vectorise.
bool allDivisible(const IRSummary &s, llvm::ArrayRef<llvm::StringRef> opNames,
                  llvm::ArrayRef<int64_t> tiles, bool elementwiseOnly) {
  bool found = false;
  for (const LinalgOpInfo &op : s.linalgOps) {
    if (!llvm::is_contained(opNames, op.name))
      continue;
    if (op.hasSubByteOperand || op.hasComplexOperand)
      return false;
    if (elementwiseOnly && (op.kind != Kind::Elementwise || op.loopRanges.size() != 2))
      return false;
    if (!op.allStatic() || op.loopRanges.size() != tiles.size())
      return false;
    for (size_t d = 0; d < tiles.size(); ++d)
      if (tiles[d] && op.loopRanges[d] % tiles[d] != 0)
        return false;
    found = true;
  }
  return found;
}

template <int64_t M, int64_t N, int64_t K>
bool matmulTiles(const IRSummary &s) {
  return allDivisible(s, {"linalg.matmul"}, {M, N, K}, false);
}
bool batchMatmulTiles(const IRSummary &s) {
  return allDivisible(s, {"linalg.batch_matmul"}, {1, 8, 32, 1}, false);
}
bool matvecTiles(const IRSummary &s) {
  return allDivisible(s, {"linalg.matvec"}, {8, 32}, false);
}
template <int64_t M, int64_t N>
bool elementwiseTiles(const IRSummary &s) {
  // Every generic/fill/copy/transpose must be a 2-D elementwise op with
  // full tiles, or the schedule would vectorise something else.
  return allDivisible(s, {"linalg.generic", "linalg.fill", "linalg.copy", "linalg.transpose"},
                      {M, N}, true);
}

/// The op producing a function's (first) returned tensor, which the
/// schedule tiles, is linalg whose first two loops are parallel and
/// divisible by the tile sizes. Were one of them a reduction, the fusion
/// would pull its init (a linalg.fill) into the reduction's tile loop and
/// restart the sum at every tile (found by a random program generator; the
/// rule looked at any op before).
template <int64_t A, int64_t B>
bool tileFuseTiles(const IRSummary &s) {
  if (!s.hasTensors)
    return false;
  bool found = false;
  for (const LinalgOpInfo &op : s.linalgOps) {
    if (!op.producesFirstReturned)
      continue;
    if (!op.onTensors || op.leadingParallel < 2)
      return false;
    found |= op.allStatic() && op.loopRanges[0] % A == 0 && op.loopRanges[1] % B == 0 &&
             op.loopRanges[0] > A;
  }
  return found;
}

/// A static matmul or batch_matmul on tensors (not a complex one: MLIR 19's
/// packing crashes on it).
bool blockPackable(const IRSummary &s) {
  return llvm::any_of(s.linalgOps, [](const LinalgOpInfo &op) {
    return op.onTensors && (op.name == "linalg.matmul" || op.name == "linalg.batch_matmul") &&
           op.allStatic() && !op.hasComplexOperand;
  });
}

constexpr ActionKind P = ActionKind::Pass;
constexpr ActionKind S = ActionKind::Schedule;
constexpr ActionKind F = ActionKind::Finish;
using C = ActionCategory;

// clang-format off
const Action kCatalog[] = {
  // ---- tensor stage: linalg on tensors ------------------------------------
  {"tensor.canonicalize", Stage::Tensor, P, C::Cleanup, "canonicalize", always, "canonicalize patterns", 3, canonicalizesTensorsSafely},
  {"tensor.cse", Stage::Tensor, P, C::Cleanup, "cse", always, "common subexpression elimination"},
  {"tensor.sccp", Stage::Tensor, P, C::Cleanup, "sccp", always, "sparse conditional constant propagation"},
  {"tensor.licm", Stage::Tensor, P, C::Cleanup, "loop-invariant-code-motion", hasLoops, "hoist loop invariants"},
  {"tensor.fuse-elementwise", Stage::Tensor, P, C::Fuse, "func.func(linalg-fuse-elementwise-ops)", fusibleElementwise, "fuse elementwise linalg ops with their producers"},
  {"tensor.fold-unit-dims", Stage::Tensor, P, C::Layout, "func.func(linalg-fold-unit-extent-dims)", hasUnitDims, "drop unit dimensions of linalg ops"},
  {"tensor.generalize", Stage::Tensor, P, C::Layout, "func.func(linalg-generalize-named-ops)", hasGeneralizable, "named linalg ops to linalg.generic"},
  {"tensor.specialize", Stage::Tensor, P, C::Layout, "func.func(linalg-specialize-generic-ops)", specializable, "linalg.generic back to named ops where they match"},
  {"tensor.eliminate-empty", Stage::Tensor, P, C::Memory, "eliminate-empty-tensors", hasTensorEmpty, "write into destinations instead of tensor.empty"},
  {"tensor.block-pack-matmul", Stage::Tensor, S, C::Layout, "block_pack_matmul_32", blockPackable, "pack matmul operands into 32x32 blocks", 3, padsNeutrally},
  {"tensor.tile-fuse-32x32", Stage::Tensor, S, C::Fuse, "tile_fuse_32x32", tileFuseTiles<32, 32>, "tile the result's producer 32x32 and fuse its producers"},
  {"tensor.tile-fuse-8x64", Stage::Tensor, S, C::Fuse, "tile_fuse_8x64", tileFuseTiles<8, 64>, "tile the result's producer 8x64 and fuse its producers"},
  {"tensor.block-pack-matmul-16", Stage::Tensor, S, C::Layout, "block_pack_matmul_16", blockPackable, "pack matmul operands into 16x16 blocks", 3, padsNeutrally},
  {"tensor.inline-scalars", Stage::Tensor, P, C::Cleanup, "func.func(linalg-inline-scalar-operands)", scalarsInlinable, "inline scalar operands into linalg.generic bodies"},
  {"tensor.fold-subsets", Stage::Tensor, P, C::Cleanup, "fold-tensor-subset-ops", hasTensorSlices, "fold extract/insert_slice into producers and consumers"},
  {"tensor.inline", Stage::Tensor, P, C::Cleanup, "inline", hasCalls, "inline calls to private functions"},
  {"tensor.symbol-dce", Stage::Tensor, P, C::Cleanup, "symbol-dce", always, "remove unused private functions and globals"},
  {"tensor.bufferize", Stage::Tensor, P, C::Bufferize, "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops},canonicalize", bufferizable, "one-shot bufferization (ends the tensor stage)"},

  // ---- linalg stage: linalg on buffers ------------------------------------
  {"linalg.canonicalize", Stage::Linalg, P, C::Cleanup, "canonicalize", always, "canonicalize patterns"},
  {"linalg.cse", Stage::Linalg, P, C::Cleanup, "cse", always, "common subexpression elimination"},
  {"linalg.generalize", Stage::Linalg, P, C::Layout, "func.func(linalg-generalize-named-ops)", hasGeneralizable, "named linalg ops to linalg.generic"},
  {"linalg.specialize", Stage::Linalg, P, C::Layout, "func.func(linalg-specialize-generic-ops)", specializable, "linalg.generic back to named ops where they match"},
  {"linalg.fold-unit-dims", Stage::Linalg, P, C::Layout, "func.func(linalg-fold-unit-extent-dims)", hasUnitDims, "drop unit dimensions of linalg ops"},
  {"linalg.inline-scalars", Stage::Linalg, P, C::Cleanup, "func.func(linalg-inline-scalar-operands)", scalarsInlinable, "inline scalar operands into linalg.generic bodies"},
  {"linalg.licm", Stage::Linalg, P, C::Cleanup, "loop-invariant-code-motion", hasLoops, "hoist loop invariants"},
  {"linalg.matmul-8x32x1", Stage::Linalg, S, C::Schedule, "matmul_tile_vec_8x32x1", matmulTiles<8, 32, 1>, "matmul: tile 8x32x1, vectorize, outer products", 3, operandsDoNotOverlap},
  {"linalg.matmul-16x16x1", Stage::Linalg, S, C::Schedule, "matmul_tile_vec_16x16x1", matmulTiles<16, 16, 1>, "matmul: tile 16x16x1, vectorize, outer products", 3, operandsDoNotOverlap},
  {"linalg.matmul-4x64x1", Stage::Linalg, S, C::Schedule, "matmul_tile_vec_4x64x1", matmulTiles<4, 64, 1>, "matmul: tile 4x64x1, vectorize, outer products", 3, operandsDoNotOverlap},
  {"linalg.matmul-8x16x4-dot", Stage::Linalg, S, C::Schedule, "matmul_tile_vec_8x16x4_dot", matmulTiles<8, 16, 4>, "matmul: tile 8x16x4, vectorize, dot products", 3, operandsDoNotOverlap},
  {"linalg.batch-matmul-1x8x32x1", Stage::Linalg, S, C::Schedule, "batch_matmul_tile_vec_1x8x32x1", batchMatmulTiles, "batch_matmul: tile 1x8x32x1, vectorize, outer products", 3, operandsDoNotOverlap},
  {"linalg.matvec-8x32", Stage::Linalg, S, C::Schedule, "matvec_tile_vec_8x32", matvecTiles, "matvec: tile 8x32, vectorize", 3, operandsDoNotOverlap},
  {"linalg.elementwise-8x32", Stage::Linalg, S, C::Schedule, "elementwise_tile_vec_8x32", elementwiseTiles<8, 32>, "2-D elementwise ops: tile 8x32, vectorize", 3, operandsDoNotOverlap},
  {"linalg.elementwise-4x64", Stage::Linalg, S, C::Schedule, "elementwise_tile_vec_4x64", elementwiseTiles<4, 64>, "2-D elementwise ops: tile 4x64, vectorize", 3, operandsDoNotOverlap},
  {"linalg.to-affine", Stage::Linalg, P, C::Lower, "func.func(convert-linalg-to-affine-loops)", hasLinalg, "linalg to affine loops (ends the linalg stage)"},
  {"linalg.to-scf", Stage::Linalg, P, C::Lower, "func.func(convert-linalg-to-loops)", hasLinalg, "linalg to scf loops (ends the linalg stage)"},
  {"linalg.to-parallel", Stage::Linalg, P, C::Lower, "func.func(convert-linalg-to-parallel-loops)", hasLinalg, "linalg to scf.parallel loops (ends the linalg stage)"},

  // ---- loops stage: affine and scf ----------------------------------------
  {"loops.canonicalize", Stage::Loops, P, C::Cleanup, "canonicalize", always, "canonicalize patterns"},
  {"loops.cse", Stage::Loops, P, C::Cleanup, "cse", always, "common subexpression elimination"},
  {"loops.sccp", Stage::Loops, P, C::Cleanup, "sccp", always, "sparse conditional constant propagation"},
  {"loops.licm", Stage::Loops, P, C::Cleanup, "loop-invariant-code-motion", hasLoops, "hoist loop invariants"},
  {"loops.affine-licm", Stage::Loops, P, C::Cleanup, "func.func(affine-loop-invariant-code-motion)", hasAffineLoops, "affine loop invariant code motion", 3, licmKeepsLoops},
  {"loops.tile-8", Stage::Loops, P, C::Tile, "func.func(affine-loop-tile{tile-size=8})", tilable, "tile affine loop nests by 8", 3, tilesValidly},
  {"loops.tile-16", Stage::Loops, P, C::Tile, "func.func(affine-loop-tile{tile-size=16})", tilable, "tile affine loop nests by 16", 3, tilesValidly},
  {"loops.tile-32", Stage::Loops, P, C::Tile, "func.func(affine-loop-tile{tile-size=32})", tilable, "tile affine loop nests by 32", 3, tilesValidly},
  {"loops.tile-64", Stage::Loops, P, C::Tile, "func.func(affine-loop-tile{tile-size=64})", tilable, "tile affine loop nests by 64", 3, tilesValidly},
  {"loops.unroll-2", Stage::Loops, P, C::Unroll, "func.func(affine-loop-unroll{unroll-factor=2})", unrollable, "unroll innermost affine loops by 2"},
  {"loops.unroll-4", Stage::Loops, P, C::Unroll, "func.func(affine-loop-unroll{unroll-factor=4})", unrollable, "unroll innermost affine loops by 4"},
  {"loops.unroll-8", Stage::Loops, P, C::Unroll, "func.func(affine-loop-unroll{unroll-factor=8})", unrollable, "unroll innermost affine loops by 8"},
  {"loops.unroll-jam-2", Stage::Loops, P, C::Unroll, "func.func(affine-loop-unroll-jam{unroll-jam-factor=2})", unrollJammable, "unroll-and-jam outer affine loops by 2", 3, jamsSafely},
  {"loops.unroll-jam-4", Stage::Loops, P, C::Unroll, "func.func(affine-loop-unroll-jam{unroll-jam-factor=4})", unrollJammable, "unroll-and-jam outer affine loops by 4", 3, jamsSafely},
  {"loops.vectorize-4", Stage::Loops, P, C::Vectorize, "func.func(affine-super-vectorize{virtual-vector-size=4})", vectorizesGainfully<4>, "affine super-vectorizer, 4 lanes", 3, vectorizesEveryAccess<4>},
  {"loops.vectorize-8", Stage::Loops, P, C::Vectorize, "func.func(affine-super-vectorize{virtual-vector-size=8})", vectorizesGainfully<8>, "affine super-vectorizer, 8 lanes", 3, vectorizesEveryAccess<8>},
  {"loops.vectorize-16", Stage::Loops, P, C::Vectorize, "func.func(affine-super-vectorize{virtual-vector-size=16})", vectorizesGainfully<16>, "affine super-vectorizer, 16 lanes", 3, vectorizesEveryAccess<16>},
  {"loops.scalrep", Stage::Loops, P, C::Memory, "func.func(affine-scalrep)", scalarReplaceable, "replace affine loads by forwarded stores"},
  {"loops.fusion", Stage::Loops, P, C::Fuse, "func.func(affine-loop-fusion)", hasAffineSiblings, "fuse sibling affine loop nests", 3, fusesSafely},
  {"loops.data-copy", Stage::Loops, P, C::Memory, "func.func(affine-data-copy-generate{fast-mem-space=0 generate-dma=false})", copyable, "copy affine tiles into local buffers", 3, copiesEveryAccess},
  {"loops.peel", Stage::Loops, P, C::Tile, "func.func(scf-for-loop-peeling)", peelable, "peel partial iterations of scf.for loops"},

  // ---- finish: the mandatory lowering at an LLVM opt level ----------------
  {"finish-O3", Stage::Finish, F, C::Finish, "", always, "lower to LLVM and JIT at -O3", 3},
  {"finish-O2", Stage::Finish, F, C::Finish, "", always, "lower to LLVM and JIT at -O2", 2},
  {"finish-O1", Stage::Finish, F, C::Finish, "", always, "lower to LLVM and JIT at -O1", 1},
};
// clang-format on
} // namespace

std::string Action::pipelineFragment() const {
  switch (kind) {
  case ActionKind::Pass:
    return body.str();
  case ActionKind::Schedule:
    return ("transform-interpreter{entry-point=" + body + "}").str();
  case ActionKind::Finish:
    return "";
  }
  return "";
}

namespace {
/// What each legality rule asks of the IR, in words, for refusing an action
/// a user names (`actions:` lists, `mqss apply --actions`).
struct LegalityRule {
  bool (*legal)(const IRSummary &);
  llvm::StringLiteral needs;
  /// Whether the rule keeps the action from IR it would get wrong (or
  /// crash on), not only from IR it has nothing to do on: where this holds
  /// (null: never), the rule's failing means the former.
  bool (*applies)(const IRSummary &) = nullptr;
  /// Which of the rule's conditions fails on the IR, where it has several
  /// (null: the sentence says it all).
  std::string (*failing)(const IRSummary &) = nullptr;
};
bool hasAffineMemoryOps(const IRSummary &s) { return s.numAffineMemoryOps > 0; }
bool hasAffineNest(const IRSummary &s) { return s.maxAffineDepth >= 2; }
bool hasAffineSiblingLoops(const IRSummary &s) { return s.maxTopLevelAffineLoops >= 2; }
/// A linalg op named one of \p names, the ones a schedule matches.
template <const llvm::StringLiteral &...Names>
bool hasLinalgNamed(const IRSummary &s) {
  return llvm::any_of(s.linalgOps, [](const LinalgOpInfo &op) {
    return ((op.name == Names) || ...);
  });
}
constexpr llvm::StringLiteral kMatmul = "linalg.matmul", kBatchMatmul = "linalg.batch_matmul",
                              kMatvec = "linalg.matvec", kGeneric = "linalg.generic",
                              kFill = "linalg.fill", kCopy = "linalg.copy",
                              kTranspose = "linalg.transpose";
bool producesReturnedTensor(const IRSummary &s) {
  return llvm::any_of(s.linalgOps,
                      [](const LinalgOpInfo &op) { return op.producesFirstReturned; });
}
/// vectorizesGainfully's failing condition, in words.
template <int64_t Width>
std::string vectorizerFailing(const IRSummary &s) {
  using O = VectorizerObstacle;
  switch (vectorizerObstacle(s, Width)) {
  case O::None:
    return streamsFailing(s);
  case O::NoAffineLoop:
    return "there is no affine loop";
  case O::InnermostBoundsNotConstant:
    return "an innermost loop's bounds are not constant";
  case O::TripCountsNotMultiples:
    return llvm::formatv("the innermost loops' trip counts have {0} as greatest common divisor",
                         s.innermostAffineTripGcd)
        .str();
  case O::InnermostStepAboveOne:
    return "an innermost loop steps by more than 1";
  case O::LoopResults:
    return "a loop has results";
  case O::SubByteAccess:
    return "an access is to elements narrower than a byte";
  case O::StridedAccess:
    return "an access moves by other than one element per iteration";
  case O::WrittenBufferInElse:
    return "a written buffer is accessed in an affine.if's else branch";
  }
  return "";
}

const LegalityRule kLegalityRules[] = {
    {hasLinalg, "a linalg op"},
    {hasGeneralizable, "a named linalg op other than linalg.map"},
    {hasGenericLinalg, "a linalg.generic"},
    {scalarsInlinable, "linalg.generic ops none of which has a scalar input (a generalized "
                       "fill's value): MLIR 19's linalg-inline-scalar-operands crashes on one",
     hasGenericLinalg},
    {hasLoops, "a loop"},
    {hasAffineLoops, "an affine.for"},
    {tilable,
     "an affine.for over data with reuse (where every access is a stream, element i of each "
     "buffer at iteration i, tiling keeps nothing in cache, and LLVM then vectorized across "
     "the tiles with gathers: 25x slower on AVX-512)",
     nullptr, streamsFailing},
    {hasScfFor, "an scf.for"},
    {hasTensorEmpty, "a tensor.empty"},
    {hasTensorSlices, "a tensor.extract_slice or tensor.insert_slice"},
    {hasCalls, "a func.call"},
    {hasUnitDims, "a linalg op with a unit dimension"},
    {fusibleElementwise, "an elementwise linalg op and another linalg op"},
    {unrollable, "affine loops whose bounds cannot cross (a lower bound above the upper one), "
                 "whose yields forward neither an iter_arg nor the induction variable, and "
                 "no two of whose iter_args start from one value: MLIR 19's unrollers "
                 "compute something else on those", hasAffineLoops},
    {unrollJammable, "an affine nest two or more deep, whose loops' bounds cannot cross, "
                     "whose yields forward neither an iter_arg nor the induction variable, "
                     "and no two of whose iter_args start from one value: MLIR 19's "
                     "unrollers compute something else on those", hasAffineNest},
    {hasAffineSiblings, "sibling affine nests with constant bounds, no loop results, and "
                        "stores under as many loops as their memref has dimensions: MLIR 19's "
                        "affine-loop-fusion gets others wrong", hasAffineSiblingLoops},
    {copyable, "affine nests two or more deep with constant trip counts, innermost steps of "
               "1, steps above 1 only on loops with constant bounds, no loop results, no "
               "affine.if and no access to a 0-d memref: MLIR 19's "
               "affine-data-copy-generate copies past its buffers on others, or crashes",
     hasAffineNest},
    {scalarReplaceable, "affine loads or stores, none inside an scf loop (whose back edges "
                        "affine-scalrep does not see), and none in an affine.if's else branch "
                        "on a buffer that is written (MLIR 19 gives it the then branch's "
                        "condition)", hasAffineMemoryOps},
    {specializable, "linalg.generic ops, none yielding its output argument and every "
                    "contraction's body exactly multiply, add and yield: MLIR 19's "
                    "specializer misreads others", hasGenericLinalg},
    {vectorizesGainfully<4>,
     "innermost affine loops with constant trip counts divisible by 4, steps of 1, no loop "
     "results, no sub-byte or strided accesses, and no access in an affine.if's else branch on "
     "a buffer that is written, and accesses that are not all streams (LLVM vectorizes those "
     "better itself)",
     vectorizerBlocked<4>, vectorizerFailing<4>},
    {vectorizesGainfully<8>,
     "innermost affine loops with constant trip counts divisible by 8, steps of 1, no loop "
     "results, no sub-byte or strided accesses, and no access in an affine.if's else branch on "
     "a buffer that is written, and accesses that are not all streams (LLVM vectorizes those "
     "better itself)",
     vectorizerBlocked<8>, vectorizerFailing<8>},
    {vectorizesGainfully<16>,
     "innermost affine loops with constant trip counts divisible by 16, steps of 1, no loop "
     "results, no sub-byte or strided accesses, and no access in an affine.if's else branch on "
     "a buffer that is written, and accesses that are not all streams (LLVM vectorizes those "
     "better itself)",
     vectorizerBlocked<16>, vectorizerFailing<16>},
    {bufferizable, "no called function declared without a body that returns a tensor (one-shot "
                   "bufferization cannot give it a buffer type)", always},
    {peelable, "scf.for loops over index with constant positive steps, whose bounds cannot cross", hasScfFor},
    {matmulTiles<8, 32, 1>, "static linalg.matmul ops (no i1 or complex operands) of sizes "
                            "divisible by 8x32x1", hasLinalgNamed<kMatmul>},
    {matmulTiles<16, 16, 1>, "static linalg.matmul ops (no i1 or complex operands) of sizes "
                             "divisible by 16x16x1", hasLinalgNamed<kMatmul>},
    {matmulTiles<4, 64, 1>, "static linalg.matmul ops (no i1 or complex operands) of sizes "
                            "divisible by 4x64x1", hasLinalgNamed<kMatmul>},
    {matmulTiles<8, 16, 4>, "static linalg.matmul ops (no i1 or complex operands) of sizes "
                            "divisible by 8x16x4", hasLinalgNamed<kMatmul>},
    {batchMatmulTiles, "static linalg.batch_matmul ops (no i1 or complex operands) of sizes "
                       "divisible by 1x8x32x1", hasLinalgNamed<kBatchMatmul>},
    {matvecTiles, "static linalg.matvec ops (no i1 or complex operands) of sizes divisible "
                  "by 8x32", hasLinalgNamed<kMatvec>},
    {elementwiseTiles<8, 32>, "every linalg.generic, fill, copy and transpose to be a static 2-D "
                              "elementwise op (no i1 or complex operands) of sizes divisible "
                              "by 8x32", hasLinalgNamed<kGeneric, kFill, kCopy, kTranspose>},
    {elementwiseTiles<4, 64>, "every linalg.generic, fill, copy and transpose to be a static 2-D "
                              "elementwise op (no i1 or complex operands) of sizes divisible "
                              "by 4x64", hasLinalgNamed<kGeneric, kFill, kCopy, kTranspose>},
    {tileFuseTiles<32, 32>, "the op producing the returned tensor to be a static linalg op on "
                            "tensors whose first two loops are parallel and divisible by "
                            "32x32 (a reduction's init would restart at every tile)", producesReturnedTensor},
    {tileFuseTiles<8, 64>, "the op producing the returned tensor to be a static linalg op on "
                           "tensors whose first two loops are parallel and divisible by 8x64 "
                           "(a reduction's init would restart at every tile)", producesReturnedTensor},
    {blockPackable, "a static linalg.matmul or linalg.batch_matmul on tensors, not of complex "
                    "numbers", hasLinalgNamed<kMatmul, kBatchMatmul>},
};
} // namespace

/// The catalog's rule for \p action; null where it has none.
static const LegalityRule *ruleOf(const Action &action) {
  for (const LegalityRule &rule : kLegalityRules)
    if (rule.legal == action.legal)
      return &rule;
  return nullptr;
}

std::string legalityNeeds(const Action &action, const IRSummary &summary) {
  const LegalityRule *rule = ruleOf(action);
  if (!rule)
    return "";
  std::string needs = rule->needs.str();
  if (rule->failing)
    if (std::string failing = rule->failing(summary); !failing.empty())
      needs += " (here " + failing + ")";
  return needs;
}

std::string illegalBecause(const Action &action, const IRSummary &summary, bool *unsafe) {
  if (unsafe)
    *unsafe = false;
  if (action.legal(summary))
    return "";
  const LegalityRule *rule = ruleOf(action);
  if (unsafe)
    *unsafe = !rule || (rule->applies && rule->applies(summary));
  if (!rule)
    return "its legality rule does not hold on this IR";
  return "its legality rule does not hold on this IR: it needs " + legalityNeeds(action, summary);
}

std::string notInPoolBecause(const Action &action, const IRSummary &summary) {
  if (action.stage != summary.stage() && action.stage != Stage::Finish)
    return llvm::formatv("an action of the {0} stage, where the IR is in the {1} stage",
                         stageName(action.stage), stageName(summary.stage()))
        .str();
  if (action.legal(summary))
    return "";
  std::string needs = legalityNeeds(action, summary);
  return needs.empty() ? "its legality rule does not hold" : "it needs " + needs;
}

llvm::ArrayRef<Action> actionCatalog() { return kCatalog; }

unsigned actionIndex(const Action &action) {
  return static_cast<unsigned>(&action - std::begin(kCatalog));
}

const Action *lookupAction(llvm::StringRef name) {
  for (const Action &action : kCatalog)
    if (action.name == name)
      return &action;
  return nullptr;
}

std::vector<const Action *> actionsFailingWith(const Action &action) {
  if (!action.precondition)
    return {&action};
  std::vector<const Action *> actions;
  for (const Action &other : kCatalog)
    if (other.precondition == action.precondition)
      actions.push_back(&other);
  return actions;
}

std::vector<const Action *> actionsForStage(Stage stage) {
  std::vector<const Action *> pool;
  for (const Action &action : kCatalog)
    if (action.stage == stage || action.stage == Stage::Finish)
      pool.push_back(&action);
  return pool;
}

std::vector<bool> legalMask(const IRSummary &summary, Stage stage) {
  std::vector<bool> mask;
  mask.reserve(std::size(kCatalog));
  for (const Action &action : kCatalog)
    mask.push_back((action.stage == stage || action.stage == Stage::Finish) &&
                   action.legal(summary));
  return mask;
}

std::vector<bool> legalMask(const IRSummary &summary, Stage stage,
                            llvm::ArrayRef<const Action *> history) {
  std::vector<bool> mask = legalMask(summary, stage);
  if (!history.empty() && history.back()->category == ActionCategory::Cleanup)
    mask[actionIndex(*history.back())] = false;
  // affine-loop-tile leaves tiled bands alone (their intra-tile loops are not
  // hyper-rectangular): after one loop tiling, another changes nothing.
  auto isLoopTiling = [](const Action &action) {
    return action.stage == Stage::Loops && action.category == ActionCategory::Tile &&
           llvm::StringRef(action.body).contains("affine-loop-tile");
  };
  if (llvm::any_of(history, [&](const Action *done) { return isLoopTiling(*done); }))
    for (const Action &action : kCatalog)
      if (isLoopTiling(action))
        mask[actionIndex(action)] = false;
  return mask;
}

uint64_t catalogHash() {
  std::string text;
  for (const Action &action : kCatalog)
    text += (action.name + "|" + stageName(action.stage) + "|" + action.body + "|" +
             llvm::Twine(action.llvmOptLevel) + "\n")
                .str();
  return llvm::xxh3_64bits(text);
}

llvm::Expected<std::vector<const Action *>> parseActionList(llvm::StringRef text) {
  std::vector<const Action *> actions;
  llvm::SmallVector<llvm::StringRef> names;
  text.split(names, ',', -1, false);
  for (llvm::StringRef name : names) {
    const Action *action = lookupAction(name.trim());
    if (!action)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("unknown action '{0}' (see `mqss actions` for the catalog)",
                        name.trim()));
    // A finish ends a sequence: what came after it was dropped unsaid.
    if (!actions.empty() && actions.back()->kind == ActionKind::Finish)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("'{0}' follows the finish action '{1}', which ends a sequence: a "
                        "finish action (its LLVM level) can only be the last",
                        name.trim(), actions.back()->name));
    actions.push_back(action);
  }
  return actions;
}

} // namespace mqss
