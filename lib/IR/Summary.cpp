//===- Summary.cpp - One walk over a module --------------------------------===//

#include "mqss/IR/Summary.h"

#include "mqss/IR/Diagnostics.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/Analysis/AffineAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/Analysis/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineValueMap.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <array>
#include <numeric>
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace mqss {

llvm::StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::Tensor: return "tensor";
  case Stage::Linalg: return "linalg";
  case Stage::Loops: return "loops";
  case Stage::Finish: return "finish";
  }
  return "finish";
}

std::optional<Stage> parseStage(llvm::StringRef name) {
  for (Stage s : {Stage::Tensor, Stage::Linalg, Stage::Loops, Stage::Finish})
    if (stageName(s) == name)
      return s;
  return std::nullopt;
}

bool LinalgOpInfo::allStatic() const {
  return llvm::none_of(loopRanges, ShapedType::isDynamic);
}

unsigned IRSummary::opCount(llvm::StringRef name) const {
  for (const auto &[opName, count] : opCounts)
    if (opName == name)
      return count;
  return 0;
}

unsigned IRSummary::countLinalg(LinalgOpInfo::Kind kind) const {
  return llvm::count_if(linalgOps, [&](const LinalgOpInfo &op) { return op.kind == kind; });
}

Stage IRSummary::stage() const {
  if (hasTensors)
    return Stage::Tensor;
  if (!linalgOps.empty())
    return Stage::Linalg;
  return Stage::Loops;
}

static bool isTensor(Type type) { return isa<TensorType>(type); }

AccessMotion accessMotionAlong(Operation *access, affine::AffineForOp loop) {
  affine::AffineValueMap accessMap;
  affine::MemRefAccess(access).getAccessMap(&accessMap);
  AffineMap map = accessMap.getAffineMap();
  AccessMotion motion;
  for (unsigned position = 0; position < accessMap.getNumOperands(); ++position) {
    if (accessMap.getOperand(position) != loop.getInductionVar())
      continue;
    motion.moves = true;
    if (position >= map.getNumDims()) {
      motion.irregular = "takes the loop's variable as a symbol";
      return motion;
    }
    for (AffineExpr result : map.getResults()) {
      if (!result.isFunctionOfDim(position))
        continue;
      bool divided = false;
      result.walk([&](AffineExpr sub) {
        auto binary = dyn_cast<AffineBinaryOpExpr>(sub);
        if (binary && sub.getKind() != AffineExprKind::Add &&
            sub.getKind() != AffineExprKind::Mul && binary.getLHS().isFunctionOfDim(position))
          divided = true; // floordiv, ceildiv, mod
      });
      SmallVector<int64_t> flat;
      if (divided ||
          failed(getFlattenedAffineExpr(result, map.getNumDims(), map.getNumSymbols(), &flat))) {
        motion.irregular = "divides the loop's variable (floordiv, ceildiv, mod)";
        return motion;
      }
      if (flat[position] != 0 && flat[position] != 1) {
        motion.irregular =
            llvm::formatv("moves by {0} elements per iteration", flat[position]).str();
        return motion;
      }
    }
  }
  return motion;
}

/// Whether affine access \p op moves along its nearest affine.for other
/// than by 0 or 1 element per iteration (see AccessMotion).
static bool stridesAlongNearestLoop(Operation *op) {
  auto loop = op->getParentOfType<affine::AffineForOp>();
  return loop && !accessMotionAlong(op, loop).irregular.empty();
}

/// Whether affine access \p op is a stream: element (i, j, ...) of its
/// buffer at iteration (i, j, ...) of the affine.for loops around it, all of
/// them, outermost first, and nothing else around it but the function. No
/// other iteration touches that element, so the access has no reuse a tile
/// could keep in cache (a stencil's neighbour, a broadcast's row, a
/// transpose's column, a reduction's accumulator all do).
static bool isStream(Operation *op) {
  affine::MemRefAccess access(op);
  SmallVector<Value> ivs;
  for (Operation *parent = op->getParentOp(); parent && !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<affine::AffineForOp>(parent);
    if (!loop)
      return false;
    ivs.insert(ivs.begin(), loop.getInductionVar());
  }
  affine::AffineValueMap map;
  access.getAccessMap(&map);
  return !ivs.empty() && map.getAffineMap().isIdentity() &&
         map.getNumResults() == ivs.size() && llvm::equal(map.getOperands(), ivs);
}

/// Iterations of \p forOp when its bounds are constants.
static std::optional<int64_t> constantTrips(affine::AffineForOp forOp) {
  if (!forOp.hasConstantBounds())
    return std::nullopt;
  int64_t span = forOp.getConstantUpperBound() - forOp.getConstantLowerBound();
  int64_t step = forOp.getStepAsInt();
  return std::max<int64_t>(0, (span + step - 1) / step);
}

/// The same, or for bounds a constant apart (a full tile) as MLIR's
/// getConstantTripCount finds them; nullopt when not static.
static std::optional<int64_t> staticTrips(affine::AffineForOp forOp) {
  if (std::optional<int64_t> trips = constantTrips(forOp))
    return trips;
  if (std::optional<uint64_t> count = affine::getConstantTripCount(forOp))
    return static_cast<int64_t>(*count);
  return std::nullopt;
}

/// Iterations of an scf.for, scf.parallel or scf.forall over all its
/// dimensions, when they are static.
static std::optional<double> staticTrips(LoopLikeOpInterface loop) {
  std::optional<SmallVector<OpFoldResult>> lower = loop.getLoopLowerBounds(),
                                           upper = loop.getLoopUpperBounds(),
                                           steps = loop.getLoopSteps();
  if (!lower || !upper || !steps)
    return std::nullopt;
  double trips = 1;
  for (auto [lb, ub, step] : llvm::zip(*lower, *upper, *steps)) {
    std::optional<int64_t> trip = constantTripCount(lb, ub, step);
    if (!trip)
      return std::nullopt;
    trips *= static_cast<double>(*trip);
  }
  return trips;
}

/// The memref an affine load or store accesses; null for other ops.
static Value affineMemRef(Operation *op) {
  if (auto read = dyn_cast<affine::AffineReadOpInterface>(op))
    return read.getMemRef();
  if (auto write = dyn_cast<affine::AffineWriteOpInterface>(op))
    return write.getMemRef();
  return nullptr;
}

/// The buffer \p op views, when it makes a view: a view-like op
/// (memref.cast, subview, the reshapes, reinterpret_cast) or
/// memref.transpose; null otherwise.
static Value viewSource(Operation *op) {
  if (auto view = dyn_cast<ViewLikeOpInterface>(op))
    return view.getViewSource();
  if (auto transpose = dyn_cast<memref::TransposeOp>(op))
    return transpose.getIn();
  return nullptr;
}

/// The buffer \p memref views (itself when it is no view), through views
/// of views.
static Value bufferRoot(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    Value source = viewSource(def);
    if (!source)
      break;
    memref = source;
  }
  return memref;
}

/// Whether \p forOp runs a constant number of iterations: constant bounds,
/// or one-result bounds over the same operands a constant apart (a full
/// tile). Cheaper than affine::getConstantTripCount, which summarize() would
/// call on every tiled loop at every step.
static bool tripCountIsConstant(affine::AffineForOp forOp) {
  if (forOp.hasConstantBounds())
    return true;
  AffineMap lower = forOp.getLowerBoundMap(), upper = forOp.getUpperBoundMap();
  if (lower.getNumResults() != 1 || upper.getNumResults() != 1 ||
      lower.getNumDims() != upper.getNumDims() ||
      lower.getNumSymbols() != upper.getNumSymbols() ||
      !llvm::equal(forOp.getLowerBoundOperands(), forOp.getUpperBoundOperands()))
    return false;
  return isa<AffineConstantExpr>(simplifyAffineExpr(upper.getResult(0) - lower.getResult(0),
                                                    lower.getNumDims(),
                                                    lower.getNumSymbols()));
}

static LinalgOpInfo describeLinalg(linalg::LinalgOp op) {
  LinalgOpInfo info;
  info.name = op->getName().getStringRef().str();
  info.numParallel = op.getNumParallelLoops();
  info.numReduction = op.getNumReductionLoops();
  auto ranges = op.getStaticLoopRanges();
  info.loopRanges.assign(ranges.begin(), ranges.end());
  info.onTensors = op.hasPureTensorSemantics();
  for (utils::IteratorType type : op.getIteratorTypesArray()) {
    if (type != utils::IteratorType::parallel)
      break;
    ++info.leadingParallel;
  }
  info.producesFirstReturned = llvm::any_of(op->getUses(), [](OpOperand &use) {
    return isa<func::ReturnOp>(use.getOwner()) && use.getOperandNumber() == 0;
  });
  info.hasUnitDim = llvm::is_contained(info.loopRanges, 1);
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    Block *body = generic.getBody();
    info.bodyOps = body->getOperations().size();
    for (Value yielded : body->getTerminator()->getOperands())
      if (auto argument = dyn_cast<BlockArgument>(yielded))
        info.yieldsOutputArgument |= argument.getOwner() == body &&
                                     argument.getArgNumber() >= generic.getNumDpsInputs();
    info.hasScalarInput = llvm::any_of(generic.getDpsInputs(), [](Value input) {
      return !isa<ShapedType>(input.getType());
    });
  }
  info.hasSubByteOperand = llvm::any_of(op->getOperandTypes(), [](Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 != 0;
  });
  info.hasComplexOperand = llvm::any_of(op->getOperandTypes(), [](Type type) {
    return isa<ComplexType>(getElementTypeOrSelf(type));
  });
  // Contractions and convolutions reduce; their (costly) matchers only run
  // on ops that have a reduction loop.
  if (info.numReduction == 0) {
    if (linalg::isElementwise(op))
      info.kind = LinalgOpInfo::Kind::Elementwise;
  } else if (linalg::isaContractionOpInterface(op)) {
    info.kind = LinalgOpInfo::Kind::Contraction;
  } else if (linalg::isaConvolutionOpInterface(op)) {
    info.kind = LinalgOpInfo::Kind::Convolution;
  } else {
    info.kind = LinalgOpInfo::Kind::Reduction;
  }
  return info;
}

/// True when \p a and \p b are the same access and it names distinct loop
/// counters directly (C[i][j]), one per subscript: then two iterations
/// touch the same element only if they agree on every loop it names, so a
/// dependence between them can run backwards only along band loops it does
/// not name, and only when there are two such loops (the first that
/// differs runs forwards).
static bool sameAccessForwardOnly(affine::MemRefAccess &a, affine::MemRefAccess &b,
                                  llvm::ArrayRef<affine::AffineForOp> band) {
  if (!(a == b))
    return false;
  affine::AffineValueMap map;
  a.getAccessMap(&map);
  llvm::SmallPtrSet<Value, 4> named;
  for (AffineExpr result : map.getAffineMap().getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      return false;
    Value operand = map.getOperand(dim.getPosition());
    if (!affine::isAffineForInductionVar(operand) || !named.insert(operand).second)
      return false;
  }
  return llvm::count_if(band, [&](affine::AffineForOp loop) {
           return !named.contains(loop.getInductionVar());
         }) < 2;
}

/// Whether some dependence from \p src to \p dst (two accesses to one
/// element, \p src first) has a negative distance along one of the first
/// \p bandSize loops around both; nullopt when the accesses cannot be put
/// in Presburger form. Upstream's checkMemrefAccessDependence answers this
/// through Fourier-Motzkin elimination, whose constraints multiply without
/// bound on summed or linearized subscripts (a 6-deep nest reading
/// A[i0 + ... + i5] took 27 s and 550 MB, 10 deep ran out of memory and
/// ended the process, a transposed copy through 4-deep linearized
/// subscripts did not end); here each question is an integer emptiness
/// test (simplex with basis reduction) on the dependence polyhedron.
static std::optional<bool> runsBackwards(const affine::MemRefAccess &src,
                                         const affine::MemRefAccess &dst, unsigned bandSize) {
  using presburger::IntegerRelation;
  using presburger::VarKind;
  IntegerRelation srcRel(presburger::PresburgerSpace::getRelationSpace());
  IntegerRelation dependence(presburger::PresburgerSpace::getRelationSpace());
  if (failed(src.getAccessRelation(srcRel)) || failed(dst.getAccessRelation(dependence)))
    return std::nullopt;
  unsigned srcLoops = srcRel.getNumDomainVars();
  if (srcLoops < bandSize || dependence.getNumDomainVars() < bandSize)
    return std::nullopt;
  // Iterations of src -> iterations of dst that touch the same element.
  dependence.inverse();
  dependence.mergeAndCompose(srcRel);
  if (dependence.getNumDomainVars() != srcLoops)
    return std::nullopt;
  unsigned dstOffset = dependence.getVarKindOffset(VarKind::Range);
  // dstCoefficient * dst_loop + srcCoefficient * src_loop + constant.
  auto row = [&](unsigned loop, int64_t dstCoefficient, int64_t srcCoefficient,
                 int64_t constant) {
    SmallVector<int64_t> coefficients(dependence.getNumCols(), 0);
    coefficients[dstOffset + loop] = dstCoefficient;
    coefficients[loop] = srcCoefficient;
    coefficients.back() = constant;
    return coefficients;
  };
  for (unsigned depth = 0; depth < bandSize; ++depth) {
    // Carried by band loop `depth`: equal outside it, later along it.
    IntegerRelation carried = dependence;
    for (unsigned outer = 0; outer < depth; ++outer)
      carried.addEquality(row(outer, 1, -1, 0));
    carried.addInequality(row(depth, 1, -1, -1));
    if (carried.isIntegerEmpty())
      continue;
    for (unsigned inner = depth + 1; inner < bandSize; ++inner) {
      IntegerRelation backwards = carried;
      backwards.addInequality(row(inner, -1, 1, -1));
      if (!backwards.isIntegerEmpty())
        return true;
    }
  }
  return false;
}

static constexpr unsigned kMaxExactPairs = 4096;

/// Whether \p op lies in the else region of an affine.if.
static bool inElseOfAffineIf(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (auto ifOp = dyn_cast<affine::AffineIfOp>(parent);
        ifOp && ifOp.getElseRegion().isAncestor(op->getParentRegion()))
      return true;
  return false;
}

/// Whether an access in an affine.if's else branch inside \p scope (a loop,
/// a module) touches a memref an affine store in it writes: MLIR 19's
/// dependence analysis gives it the then branch's condition (see
/// bandPermutable), so isLoopParallel, affine-scalrep's forwarding and the
/// vectorizer's parallelism check may miss a dependence through it.
static bool writtenMemRefAccessedInElse(Operation *scope) {
  llvm::SmallPtrSet<Value, 4> written;
  scope->walk([&](affine::AffineWriteOpInterface store) { written.insert(store.getMemRef()); });
  return scope->walk([&](Operation *op) {
               Value memref;
               if (auto load = dyn_cast<affine::AffineReadOpInterface>(op))
                 memref = load.getMemRef();
               else if (auto store = dyn_cast<affine::AffineWriteOpInterface>(op))
                 memref = store.getMemRef();
               return memref && written.contains(memref) && inElseOfAffineIf(op)
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             })
      .wasInterrupted();
}

/// Whether affine-loop-tile keeps \p root's results: it tiles the perfectly
/// nested band at \p root, which is valid when no dependence between the
/// accesses inside has a negative distance along a band loop. Only memrefs
/// the nest writes carry dependences; the exact (Presburger) test runs on
/// the pairs the quick test above cannot clear.
static bool bandPermutable(affine::AffineForOp root) {
  SmallVector<affine::AffineForOp> band;
  affine::getPerfectlyNestedLoops(band, root);
  if (band.size() < 2)
    return true; // strip-mining one loop keeps the order
  // Accesses equal to one already listed (same kind, element and nest) add
  // no dependence of their own.
  SmallVector<affine::MemRefAccess> accesses;
  llvm::SmallPtrSet<Value, 4> written;
  auto add = [&](Operation *op) {
    affine::MemRefAccess access(op);
    if (!llvm::any_of(accesses, [&](const affine::MemRefAccess &listed) {
          return listed.isStore() == access.isStore() && listed == access &&
                 listed.opInst->getBlock() == op->getBlock();
        }))
      accesses.push_back(access);
  };
  root->walk([&](Operation *op) {
    if (auto store = dyn_cast<affine::AffineWriteOpInterface>(op)) {
      written.insert(store.getMemRef());
      add(op);
    } else if (isa<affine::AffineReadOpInterface>(op)) {
      add(op);
    }
  });
  // Each pair costs emptiness tests: past this many pairs the nest is taken
  // as not known to be permutable (400 distinct load/store pairs in one
  // body took minutes).
  unsigned pairs = 0;
  for (affine::MemRefAccess &srcAccess : accesses) {
    if (!written.contains(srcAccess.memref))
      continue;
    for (affine::MemRefAccess &dstAccess : accesses) {
      if (dstAccess.memref != srcAccess.memref ||
          (!srcAccess.isStore() && !dstAccess.isStore()) ||
          sameAccessForwardOnly(srcAccess, dstAccess, band))
        continue;
      // MLIR 19 gives an access in an affine.if's else branch the then
      // branch's condition (getIndexSet adds it either way): a dependence
      // between the branches looks like none (found by a random
      // loop-program generator: `default` tiled a transposed update split
      // by `j >= i`). Such a pair, which the quick test did not clear, is
      // not analysed.
      if (inElseOfAffineIf(srcAccess.opInst) || inElseOfAffineIf(dstAccess.opInst))
        return false;
      if (++pairs > kMaxExactPairs)
        return false;
      std::optional<bool> backwards = runsBackwards(srcAccess, dstAccess, band.size());
      if (!backwards || *backwards)
        return false;
    }
  }
  return true;
}

Operation *affineNestWithBackwardDependence(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](affine::AffineForOp loop) {
    if (found || loop->getParentOfType<affine::AffineForOp>())
      return;
    if (!bandPermutable(loop))
      found = loop;
  });
  return found;
}

/// The sub-blocks MLIR 19's unroll-and-jam copies together: the runs of ops
/// other than affine.for in \p block and, recursively, in the bodies of
/// the affine.for ops between them.
static unsigned jamSubBlocks(Block &block) {
  unsigned count = 0;
  bool inRun = false;
  for (Operation &op : block.without_terminator()) {
    if (auto loop = dyn_cast<affine::AffineForOp>(op)) {
      count += jamSubBlocks(*loop.getBody());
      inRun = false;
    } else if (!inRun) {
      ++count;
      inRun = true;
    }
  }
  return count;
}

std::optional<PassHazard> affineUnrollJamHazard(ModuleOp module) {
  std::optional<PassHazard> found;
  module.walk([&](func::FuncOp function) {
    if (found || function.isExternal() || function.front().empty())
      return;
    // The pass takes the function's first op, when it is a loop.
    auto loop = dyn_cast<affine::AffineForOp>(function.front().front());
    if (!loop || jamSubBlocks(*loop.getBody()) < 2)
      return;
    // Nor does it jam a loop whose inner loops' bounds depend on it
    // (PolyBench's triangular trmm): it leaves the loop as it is.
    bool innerBoundsInvariant = !loop.walk([&](affine::AffineForOp inner) {
      for (Value operand : inner.getControlOperands())
        if (!loop.isDefinedOutsideOfLoop(operand))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }).wasInterrupted();
    if (!innerBoundsInvariant)
      return;
    // The dependence analysis reports what it cannot analyse as errors,
    // and then answers conservatively.
    ScopedDiagnosticHandler quiet(module.getContext(), [](Diagnostic &) { return success(); });
    bool parallel = affine::isLoopParallel(loop);
    if (parallel && !writtenMemRefAccessedInElse(loop.getOperation()))
      return;
    found = PassHazard{loop, std::string("unroll-and-jam would interleave the loops and ops in "
                                         "this loop's body across its iterations, and ") +
                                 (parallel ? "a memref it writes is accessed in an affine.if's "
                                             "else branch, where MLIR 19 cannot tell whether "
                                             "a dependence runs between them"
                                           : "a dependence runs between its iterations") +
                                 " (MLIR 19's affine-loop-unroll-jam does not check)"};
  });
  return found;
}

namespace {
/// How an access reaches its memref: the map, and for each map operand the
/// constant bounds and step of the affine.for whose iv it is. Two accesses
/// with the same reach touch the same elements in the same order.
using Reach = std::pair<AffineMap, SmallVector<std::array<int64_t, 3>>>;

std::optional<Reach> reachOf(Operation *op) {
  AffineMap map;
  SmallVector<Value> operands;
  if (auto read = dyn_cast<affine::AffineReadOpInterface>(op)) {
    map = read.getAffineMap();
    operands = llvm::to_vector(read.getMapOperands());
  } else if (auto write = dyn_cast<affine::AffineWriteOpInterface>(op)) {
    map = write.getAffineMap();
    operands = llvm::to_vector(write.getMapOperands());
  } else {
    return std::nullopt;
  }
  Reach reach{map, {}};
  for (Value operand : operands) {
    affine::AffineForOp loop = affine::getForInductionVarOwner(operand);
    if (!loop || !loop.hasConstantBounds())
      return std::nullopt;
    reach.second.push_back(
        {loop.getConstantLowerBound(), loop.getConstantUpperBound(), loop.getStepAsInt()});
  }
  return reach;
}
} // namespace

std::optional<PassHazard> affineFusionHazard(ModuleOp module) {
  std::optional<PassHazard> found;
  module.walk([&](Block *block) {
    if (found)
      return WalkResult::interrupt();
    SmallVector<affine::AffineForOp> nests(block->getOps<affine::AffineForOp>());
    if (nests.size() < 2)
      return WalkResult::advance();
    // Per nest, the memrefs it reads and writes, and how each is reached
    // (nullopt once some access's reach is not known).
    SmallVector<llvm::SmallPtrSet<Value, 4>> read(nests.size()), written(nests.size());
    SmallVector<llvm::DenseMap<Value, std::optional<Reach>>> reaches(nests.size());
    for (auto [index, nest] : llvm::enumerate(nests)) {
      nest->walk([&](Operation *op) {
        if (auto loop = dyn_cast<affine::AffineForOp>(op);
            loop && loop.getStepAsInt() != 1 && !found)
          found = PassHazard{loop, "a loop among sibling nests steps by " +
                                         std::to_string(loop.getStepAsInt()) +
                                         ": MLIR 19's affine-loop-fusion computes the "
                                         "slices it fuses without the loops' steps (it fused "
                                         "nests of different steps, dropping iterations), "
                                         "so only nests of unit steps are fused"};
        Value memref = affineMemRef(op);
        if (auto load = dyn_cast<memref::LoadOp>(op))
          memref = load.getMemRef();
        else if (auto store = dyn_cast<memref::StoreOp>(op))
          memref = store.getMemRef();
        if (!memref)
          return;
        bool writes = isa<affine::AffineWriteOpInterface, memref::StoreOp>(op);
        (writes ? written : read)[index].insert(memref);
        std::optional<Reach> reach = reachOf(op);
        auto [slot, first] = reaches[index].try_emplace(memref, reach);
        if (!first && slot->second != reach)
          slot->second = std::nullopt;
      });
      if (found)
        return WalkResult::interrupt();
    }
    // A nest that updates a buffer in place is fused correctly only when the
    // fused slice takes all of it: when every access of both nests reaches
    // the buffer the same way. Otherwise the slice runs the update again
    // beside the kept nest (or on a private copy without the old values).
    for (unsigned producer = 0; producer < nests.size(); ++producer)
      for (Value memref : written[producer]) {
        if (!read[producer].contains(memref))
          continue;
        for (unsigned other = 0; other < nests.size(); ++other) {
          if (other == producer ||
              (!read[other].contains(memref) && !written[other].contains(memref)))
            continue;
          const std::optional<Reach> &mine = reaches[producer].lookup(memref);
          const std::optional<Reach> &theirs = reaches[other].lookup(memref);
          if (mine && theirs && *mine == *theirs)
            continue;
          found = PassHazard{nests[producer],
                               "this nest updates a buffer in place that a sibling nest "
                               "reaches differently: MLIR 19's affine-loop-fusion runs the "
                               "update again in the fused slice, or on a private copy "
                               "without the buffer's old values"};
          return WalkResult::interrupt();
        }
      }
    // A buffer read by one nest and overwritten by a later one (write after
    // read): the fused slice of the earlier nest, recomputed inside the
    // later one, reads the new values (found by a random loop-program
    // generator: `a[i] = 2 * x[i]` then `x[i] = a[i - 1]`).
    for (unsigned later = 1; later < nests.size(); ++later)
      for (unsigned earlier = 0; earlier < later; ++earlier)
        for (Value memref : written[later])
          if (read[earlier].contains(memref) && !written[earlier].contains(memref)) {
            found = PassHazard{nests[later],
                               "this nest overwrites a buffer that an earlier sibling nest "
                               "reads: MLIR 19's affine-loop-fusion ignores that order "
                               "(a write after a read) and may recompute the earlier nest "
                               "from the new values"};
            return WalkResult::interrupt();
          }
    // A buffer freed between nests: fusion moves a nest that uses it past
    // its memref.dealloc (data-copy leaves such deallocs).
    for (auto dealloc : block->getOps<memref::DeallocOp>())
      for (auto [index, nest] : llvm::enumerate(nests)) {
        Value memref = dealloc.getMemref();
        if (!nest->isBeforeInBlock(dealloc) || !dealloc->isBeforeInBlock(nests.back()) ||
            (!read[index].contains(memref) && !written[index].contains(memref)))
          continue;
        found = PassHazard{dealloc, "this frees a buffer that a sibling nest before it uses, "
                                    "with nests after it: MLIR 19's affine-loop-fusion may "
                                    "move that nest past the dealloc (a use after free)"};
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

/// Whether \p effects hold one of kind \p Effect on \p value (or on no
/// value in particular).
template <typename Effect>
static bool hasEffectOn(llvm::ArrayRef<MemoryEffects::EffectInstance> effects, Value value) {
  return llvm::any_of(effects, [&](const MemoryEffects::EffectInstance &effect) {
    return isa<Effect>(effect.getEffect()) && (!effect.getValue() || effect.getValue() == value);
  });
}

/// The first op under \p roots that reaches a buffer they also reach
/// another way, one of the ways writing it; or, with \p nonAffine, that
/// writes a buffer they reach by non-affine ops only. A way is an affine
/// access through one name of the buffer (itself, or a view of it), or with
/// \p nonAffine any other op that takes the buffer or a view of it
/// (memref.load/store, vector transfers, calls).
static std::optional<PassHazard> reachedTwoWays(llvm::ArrayRef<Operation *> roots,
                                                bool nonAffine) {
  llvm::StringRef where = roots.size() > 1 ? "its loop nest or a sibling nest" : "its loop nest";
  struct Ways {
    llvm::SmallPtrSet<Value, 2> names; ///< of affine accesses
    bool opaque = false;               ///< some other op reaches it
    bool written = false;
  };
  llvm::DenseMap<Value, Ways> buffers;
  std::optional<PassHazard> found;
  auto reach = [&](Operation *op, Value memref, bool opaque, bool writes) {
    Ways &ways = buffers[bufferRoot(memref)];
    if (opaque)
      ways.opaque = true;
    else
      ways.names.insert(memref);
    ways.written |= writes;
    if (!ways.written)
      return;
    if (ways.names.size() > 1)
      found = PassHazard{op, ("this access reaches a buffer that " + where +
                              " also reaches under another name (a view of it, such as a "
                              "memref.cast or subview), and one of them writes it: MLIR 19's "
                              "affine analyses compare accesses by name, and see no dependence "
                              "between the two")
                                 .str()};
    else if (ways.opaque)
      found = PassHazard{op, ("a buffer this op reaches is written in " + where +
                              ", and reached by ops other than affine loads and stores: MLIR "
                              "19's affine analyses see no dependence through those")
                                 .str()};
  };
  for (Operation *root : roots) {
    root->walk([&](Operation *op) {
      if (Value memref = affineMemRef(op)) {
        reach(op, memref, /*opaque=*/false, isa<affine::AffineWriteOpInterface>(op));
        return found ? WalkResult::interrupt() : WalkResult::advance();
      }
      if (!nonAffine || viewSource(op) ||
          llvm::none_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>) ||
          isMemoryEffectFree(op))
        return WalkResult::advance();
      // Reads and writes unless it says otherwise (a call says nothing);
      // allocating and freeing are no access.
      SmallVector<MemoryEffects::EffectInstance> effects;
      auto declared = dyn_cast<MemoryEffectOpInterface>(op);
      if (declared)
        declared.getEffects(effects);
      for (Value operand : op->getOperands()) {
        if (!isa<BaseMemRefType>(operand.getType()))
          continue;
        bool writes = !declared || hasEffectOn<MemoryEffects::Write>(effects, operand);
        if (writes || hasEffectOn<MemoryEffects::Read>(effects, operand))
          reach(op, operand, /*opaque=*/true, writes);
      }
      return found ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (found)
      return found;
  }
  return std::nullopt;
}

std::optional<PassHazard> affineLicmHazard(ModuleOp module) {
  std::optional<PassHazard> found;
  auto refuse = [&](Operation *op, const char *why) {
    found = PassHazard{op, why};
    return WalkResult::interrupt();
  };
  module.walk([&](Operation *op) {
    auto loop = dyn_cast<affine::AffineForOp>(op);
    if (!loop)
      return WalkResult::advance();
    // Over a whole nest, once: one buffer accessed under two names (a
    // memref.cast, a subview), one of them written, since the pass sees
    // dependences through one name only; and writes it does not see.
    std::optional<PassHazard> twice;
    Operation *unseen = nullptr;
    const char *unseenWhy = nullptr;
    if (!loop->getParentOfType<affine::AffineForOp>()) {
      twice = reachedTwoWays(loop.getOperation(), /*nonAffine=*/false);
      loop.getBody()->walk([&](Operation *inner) {
        if (unseen || affineMemRef(inner) ||
            inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          return;
        auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
        if (isa<CallOpInterface>(inner))
          unseenWhy = "a call in the loop may write memory: MLIR 19's "
                      "affine-loop-invariant-code-motion does not look into it, "
                      "and hoists a load past it";
        else if (!effects || effects.hasEffect<MemoryEffects::Write>())
          unseenWhy = "this op writes memory other than by an affine store: MLIR 19's "
                      "affine-loop-invariant-code-motion sees only affine accesses, "
                      "and hoists a load past it";
        if (unseenWhy)
          unseen = inner;
      });
    }
    if (twice)
      return refuse(twice->op, "this access reaches a buffer the loop also reaches under another "
                           "name (a view of it), and one of them writes: MLIR 19's "
                           "affine-loop-invariant-code-motion sees dependences through one "
                           "name only, and hoists a load past the other's store");
    return unseen ? refuse(unseen, unseenWhy) : WalkResult::advance();
  });
  return found;
}

std::optional<PassHazard> affineAliasHazard(ModuleOp module, NestScope scope,
                                            bool nonAffine) {
  std::optional<PassHazard> found;
  module.walk([&](Block *block) {
    SmallVector<Operation *> nests;
    for (affine::AffineForOp nest : block->getOps<affine::AffineForOp>())
      nests.push_back(nest);
    if (nests.empty() || nests.front()->getParentOfType<affine::AffineForOp>())
      return WalkResult::advance();
    if (scope == NestScope::Siblings) {
      if (nests.size() > 1)
        found = reachedTwoWays(nests, nonAffine);
      return found ? WalkResult::interrupt() : WalkResult::advance();
    }
    for (Operation *nest : nests) {
      SmallVector<affine::AffineForOp> band;
      if (scope == NestScope::Band) {
        affine::getPerfectlyNestedLoops(band, cast<affine::AffineForOp>(nest));
        if (band.size() < 2)
          continue;
      }
      if ((found = reachedTwoWays(nest, nonAffine)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

Operation *affineLoopWithoutBounds(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](affine::AffineForOp loop) {
    if (loop.getLowerBoundMap().getNumResults() == 0 ||
        loop.getUpperBoundMap().getNumResults() == 0) {
      found = loop;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

namespace {
/// The values an induction variable (or a constant) takes: first, first +
/// step, ..., last.
struct IvValues {
  int64_t first = 0, last = 0, step = 1;
  int64_t count() const { return (last - first) / step + 1; }
};
} // namespace

/// \p expr at the given values of its dimensions and symbols; nullopt on
/// overflow or a divisor that is not positive.
static std::optional<int64_t> evaluateAffine(AffineExpr expr, ArrayRef<int64_t> dims,
                                             ArrayRef<int64_t> symbols) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[symbol.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<int64_t> lhs = evaluateAffine(binary.getLHS(), dims, symbols);
  std::optional<int64_t> rhs = evaluateAffine(binary.getRHS(), dims, symbols);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t result;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return llvm::AddOverflow(*lhs, *rhs, result) ? std::nullopt : std::optional(result);
  case AffineExprKind::Mul:
    return llvm::MulOverflow(*lhs, *rhs, result) ? std::nullopt : std::optional(result);
  case AffineExprKind::FloorDiv:
    return *rhs > 0 ? std::optional(llvm::divideFloorSigned(*lhs, *rhs)) : std::nullopt;
  case AffineExprKind::CeilDiv:
    return *rhs > 0 ? std::optional(llvm::divideCeilSigned(*lhs, *rhs)) : std::nullopt;
  case AffineExprKind::Mod:
    return *rhs > 0 ? std::optional(llvm::mod(*lhs, *rhs)) : std::nullopt;
  default:
    return std::nullopt;
  }
}

/// The values of each operand of an access map, where known: nullopt for
/// one that is neither a loop's induction variable nor a constant.
using OperandValues = ArrayRef<std::optional<IvValues>>;

/// The range of a linear \p flat expression (coefficients of \p values,
/// then a constant): each term reaches its extremes independently.
static std::optional<std::pair<int64_t, int64_t>> linearRange(ArrayRef<int64_t> flat,
                                                              OperandValues values) {
  __int128 low = flat.back(), high = flat.back();
  for (auto [coefficient, value] : llvm::zip(flat.drop_back(), values)) {
    if (coefficient == 0)
      continue;
    if (!value)
      return std::nullopt;
    __int128 a = __int128(coefficient) * value->first, b = __int128(coefficient) * value->last;
    low += std::min(a, b);
    high += std::max(a, b);
  }
  if (low < INT64_MIN || high > INT64_MAX)
    return std::nullopt;
  return std::pair<int64_t, int64_t>{int64_t(low), int64_t(high)};
}

/// The range of \p expr over every combination of the values its operands
/// take (floordiv, ceildiv and mod make it other than linear), when there
/// are at most 2^20 of them: counted, not bounded, so that it is exact.
static std::optional<std::pair<int64_t, int64_t>>
enumeratedRange(AffineExpr expr, unsigned numDims, OperandValues values) {
  SmallVector<unsigned> used;
  int64_t points = 1;
  for (auto [position, value] : llvm::enumerate(values)) {
    bool isUsed = position < numDims ? expr.isFunctionOfDim(position)
                                     : expr.isFunctionOfSymbol(position - numDims);
    if (!isUsed)
      continue;
    if (!value)
      return std::nullopt;
    used.push_back(position);
    points *= value->count();
    if (points > (int64_t(1) << 20))
      return std::nullopt;
  }
  SmallVector<int64_t> current; // unknown operands are unused: any value
  for (const std::optional<IvValues> &value : values)
    current.push_back(value ? value->first : 0);
  std::optional<std::pair<int64_t, int64_t>> range;
  for (int64_t point = 0; point < points; ++point) {
    std::optional<int64_t> v = evaluateAffine(
        expr, ArrayRef(current).take_front(numDims), ArrayRef(current).drop_front(numDims));
    if (!v)
      return std::nullopt;
    range = range ? std::pair{std::min(range->first, *v), std::max(range->second, *v)}
                  : std::pair{*v, *v};
    for (unsigned position : used) { // the next point, odometer-wise
      const IvValues &value = *values[position];
      if ((current[position] += value.step) <= value.last)
        break;
      current[position] = value.first;
    }
  }
  return range;
}

/// The range of each result of \p map over \p values of its operands.
static std::optional<SmallVector<std::pair<int64_t, int64_t>>>
resultRanges(AffineMap map, OperandValues values) {
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  for (AffineExpr result : map.getResults()) {
    SmallVector<int64_t> flat;
    std::optional<std::pair<int64_t, int64_t>> range;
    if (succeeded(getFlattenedAffineExpr(result, map.getNumDims(), map.getNumSymbols(),
                                         &flat)) &&
        flat.size() == values.size() + 1)
      range = linearRange(flat, values);
    else // floordiv, ceildiv, mod: local variables
      range = enumeratedRange(result, map.getNumDims(), values);
    if (!range)
      return std::nullopt;
    ranges.push_back(*range);
  }
  return ranges;
}

/// The range of indices \p op reaches along each dimension, where the
/// enclosing ops up to the function are affine.for loops with constant
/// bounds and the index uses only their induction variables and
/// constants; nullopt otherwise, or where the access never runs (a loop
/// without iterations).
static std::optional<SmallVector<std::pair<int64_t, int64_t>>>
exactIndexRanges(Operation *op, AffineMap map, ValueRange operands) {
  llvm::DenseMap<Value, IvValues> ivValues;
  for (Operation *parent = op->getParentOp(); !isa<func::FuncOp>(parent);
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<affine::AffineForOp>(parent);
    if (!loop || !loop.hasConstantBounds())
      return std::nullopt;
    int64_t lower = loop.getConstantLowerBound(), upper = loop.getConstantUpperBound();
    if (upper <= lower)
      return std::nullopt; // never runs
    int64_t step = loop.getStepAsInt();
    ivValues[loop.getInductionVar()] = {lower, lower + (upper - 1 - lower) / step * step, step};
  }
  SmallVector<std::optional<IvValues>> values;
  for (Value operand : operands) {
    if (auto it = ivValues.find(operand); it != ivValues.end())
      values.push_back(it->second);
    else if (std::optional<int64_t> constant = getConstantIntValue(operand))
      values.push_back(IvValues{*constant, *constant, 1});
    else
      values.push_back(std::nullopt);
  }
  return resultRanges(map, values);
}

namespace {
/// The smallest and largest values an affine.for's lower bound (the largest
/// of its map's results) and upper bound (the smallest) may take.
struct BoundExtremes {
  int64_t lowestLower = INT64_MAX, highestLower = INT64_MIN;
  int64_t lowestUpper = INT64_MAX, highestUpper = INT64_MIN;
};

/// The intervals of affine induction variables, each from the ranges of its
/// loop's bounds over the intervals of the loops around it, computed once
/// per loop (a chain of loops whose bounds both use the loop outside would
/// otherwise be walked twice per level).
class LoopIntervals {
public:
  /// \p loop's bound extremes; nullopt where a bound uses anything but
  /// induction variables and constants (a symbol, another op's result).
  std::optional<BoundExtremes> extremes(affine::AffineForOp loop) {
    auto lower = ranges(loop.getLowerBoundMap(), loop.getLowerBoundOperands());
    auto upper = ranges(loop.getUpperBoundMap(), loop.getUpperBoundOperands());
    if (!lower || !upper || lower->empty() || upper->empty())
      return std::nullopt;
    BoundExtremes bounds;
    for (auto [low, high] : *lower) {
      bounds.lowestLower = std::min(bounds.lowestLower, low);
      bounds.highestLower = std::max(bounds.highestLower, high);
    }
    for (auto [low, high] : *upper) {
      bounds.lowestUpper = std::min(bounds.lowestUpper, low);
      bounds.highestUpper = std::max(bounds.highestUpper, high);
    }
    return bounds;
  }

  /// The values \p loop's induction variable may take (with its step where
  /// its lower bound is fixed); nullopt where its bounds are not known as
  /// above, or the loop may not run at all.
  std::optional<IvValues> interval(affine::AffineForOp loop) {
    if (auto it = known.find(loop); it != known.end())
      return it->second;
    std::optional<IvValues> values;
    if (std::optional<BoundExtremes> bounds = extremes(loop);
        bounds && bounds->highestUpper - 1 >= bounds->lowestLower) {
      int64_t first = bounds->lowestLower, last = bounds->highestUpper - 1;
      // From a lower bound that does not vary, the steps are known: a tile
      // loop `0 to 64 step 32` takes 0 and 32.
      int64_t step = loop.getStepAsInt();
      values = first == bounds->highestLower && step > 0
                   ? IvValues{first, first + (last - first) / step * step, step}
                   : IvValues{first, last, 1};
    }
    known[loop] = values;
    return values;
  }

  /// The smallest value \p loop's upper bound minus its lower bound may
  /// take (each pair of their maps' results, over the intervals of the
  /// operands they share: `max(%i - 2, 0) to min(%i + 3, 16)` never
  /// crosses); nullopt where a bound uses anything but induction variables
  /// and constants.
  std::optional<int64_t> smallestSpan(affine::AffineForOp loop) {
    MLIRContext *context = loop.getContext();
    SmallVector<Value> operands;
    llvm::DenseMap<Value, unsigned> position;
    // Each bound's results, over one dimension per distinct operand.
    auto results = [&](AffineMap map, ValueRange mapOperands) {
      SmallVector<AffineExpr> dims, symbols;
      for (auto [index, operand] : llvm::enumerate(mapOperands)) {
        auto [it, inserted] = position.try_emplace(operand, operands.size());
        if (inserted)
          operands.push_back(operand);
        (index < map.getNumDims() ? dims : symbols)
            .push_back(getAffineDimExpr(it->second, context));
      }
      SmallVector<AffineExpr> exprs;
      for (AffineExpr result : map.getResults())
        exprs.push_back(result.replaceDimsAndSymbols(dims, symbols));
      return exprs;
    };
    SmallVector<AffineExpr> lowers = results(loop.getLowerBoundMap(), loop.getLowerBoundOperands());
    SmallVector<AffineExpr> uppers = results(loop.getUpperBoundMap(), loop.getUpperBoundOperands());
    SmallVector<AffineExpr> spans;
    for (AffineExpr upper : uppers)
      for (AffineExpr lower : lowers)
        spans.push_back(upper - lower);
    auto ranges = this->ranges(AffineMap::get(operands.size(), 0, spans, context), operands);
    if (!ranges || ranges->empty())
      return std::nullopt;
    return llvm::min_element(*ranges, [](auto a, auto b) { return a.first < b.first; })->first;
  }

private:
  /// The range of each result of \p map at \p operands.
  std::optional<SmallVector<std::pair<int64_t, int64_t>>> ranges(AffineMap map,
                                                                  ValueRange operands) {
    SmallVector<std::optional<IvValues>> values;
    for (Value operand : operands) {
      if (affine::AffineForOp owner = affine::getForInductionVarOwner(operand))
        values.push_back(interval(owner));
      else if (std::optional<int64_t> constant = getConstantIntValue(operand))
        values.push_back(IvValues{*constant, *constant, 1});
      else
        return std::nullopt;
      if (!values.back())
        return std::nullopt;
    }
    return resultRanges(map, values);
  }

  llvm::DenseMap<Operation *, std::optional<IvValues>> known;
};
} // namespace

bool alwaysRuns(affine::AffineForOp loop) {
  if (std::optional<uint64_t> trips = affine::getConstantTripCount(loop))
    return *trips > 0;
  LoopIntervals intervals;
  std::optional<int64_t> span = intervals.smallestSpan(loop);
  return span && *span > 0;
}

/// Whether \p forOp's upper bound may fall below its lower bound (a loop
/// `%i + 2 to 16`, `4 to %n`), where it runs zero times, but MLIR 19's
/// unrollers start their cleanup loop at lb + ((ub - lb) floordiv f) * f,
/// below the lower bound. Where its bounds use only induction variables
/// and constants, their difference is bounded over the intervals of the
/// loops around it (see smallestSpan); otherwise only a loop from 0 is
/// taken to run forwards (its upper bound a size). Found by random
/// loop-program generators.
static bool mayEndBelowStart(affine::AffineForOp forOp, LoopIntervals &intervals) {
  if (affine::getConstantTripCount(forOp))
    return false;
  if (std::optional<int64_t> span = intervals.smallestSpan(forOp))
    return *span < 0;
  AffineMap lowerMap = forOp.getLowerBoundMap();
  return !(lowerMap.isSingleConstant() && lowerMap.getSingleConstantResult() == 0);
}

/// The results of \p map at \p operands, each operand the value \p values
/// gives it (an induction variable's) or a constant; nullopt where one is
/// neither, or a result cannot be evaluated.
static std::optional<SmallVector<int64_t>>
evaluateAt(AffineMap map, ValueRange operands, const llvm::DenseMap<Value, int64_t> &values) {
  SmallVector<int64_t> at;
  for (Value operand : operands) {
    if (auto it = values.find(operand); it != values.end())
      at.push_back(it->second);
    else if (std::optional<int64_t> constant = getConstantIntValue(operand))
      at.push_back(*constant);
    else
      return std::nullopt;
  }
  SmallVector<int64_t> results;
  for (AffineExpr expr : map.getResults()) {
    std::optional<int64_t> v = evaluateAffine(expr, ArrayRef(at).take_front(map.getNumDims()),
                                              ArrayRef(at).drop_front(map.getNumDims()));
    if (!v)
      return std::nullopt;
    results.push_back(*v);
  }
  return results;
}

/// Calls \p visit at each iteration of \p loops (outermost first, each
/// enclosing the next), with the values of their induction variables in
/// \p values: each loop's bounds evaluated at the values of the loops
/// outside it. False when a bound uses anything else (a symbol, another
/// op's result) or past \p budget iterations, or when \p visit is.
static bool forEachIteration(ArrayRef<affine::AffineForOp> loops,
                             llvm::DenseMap<Value, int64_t> &values, int64_t &budget,
                             llvm::function_ref<bool()> visit) {
  if (loops.empty())
    return --budget >= 0 && visit();
  affine::AffineForOp loop = loops.front();
  auto bound = [&](AffineMap map, ValueRange operands,
                   bool lower) -> std::optional<int64_t> {
    std::optional<SmallVector<int64_t>> results = evaluateAt(map, operands, values);
    if (!results || results->empty())
      return std::nullopt;
    return lower ? *llvm::max_element(*results) : *llvm::min_element(*results);
  };
  std::optional<int64_t> lower =
      bound(loop.getLowerBoundMap(), loop.getLowerBoundOperands(), /*lower=*/true);
  std::optional<int64_t> upper =
      bound(loop.getUpperBoundMap(), loop.getUpperBoundOperands(), /*lower=*/false);
  if (!lower || !upper)
    return false;
  for (int64_t iv = *lower; iv < *upper; iv += loop.getStepAsInt()) {
    values[loop.getInductionVar()] = iv;
    if (!forEachIteration(loops.drop_front(), values, budget, visit))
      return false;
  }
  return true;
}

/// The affine.for loops enclosing \p op up to its function, outermost
/// first; nullopt when another op encloses it.
static std::optional<SmallVector<affine::AffineForOp>> enclosingLoops(Operation *op) {
  SmallVector<affine::AffineForOp> loops;
  for (Operation *parent = op->getParentOp(); !isa<FunctionOpInterface>(parent);
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<affine::AffineForOp>(parent);
    if (!loop)
      return std::nullopt;
    loops.insert(loops.begin(), loop);
  }
  return loops;
}

/// How many elements \p store writes, in closed form, where its indices
/// are distinct induction variables of loops with constant bounds and step
/// 1 (each plus a constant): the product of those loops' trip counts.
/// Nullopt when it is not of that form.
static std::optional<int64_t> elementsWrittenInBox(affine::AffineStoreOp store) {
  std::optional<SmallVector<affine::AffineForOp>> loops = enclosingLoops(store);
  if (!loops)
    return std::nullopt;
  llvm::DenseMap<Value, affine::AffineForOp> loopOf;
  for (affine::AffineForOp loop : *loops) {
    if (!loop.hasConstantBounds() ||
        loop.getConstantUpperBound() <= loop.getConstantLowerBound())
      return std::nullopt;
    loopOf[loop.getInductionVar()] = loop;
  }
  AffineMap map = store.getAffineMap();
  ValueRange operands = store.getMapOperands();
  llvm::SmallPtrSet<Operation *, 4> used;
  int64_t count = 1;
  for (AffineExpr result : map.getResults()) {
    SmallVector<int64_t> flat;
    if (failed(getFlattenedAffineExpr(result, map.getNumDims(), map.getNumSymbols(), &flat)) ||
        flat.size() != operands.size() + 1)
      return std::nullopt;
    unsigned ivs = 0;
    for (auto [coefficient, operand] : llvm::zip(ArrayRef(flat).drop_back(), operands)) {
      if (coefficient == 0 || getConstantIntValue(operand))
        continue;
      affine::AffineForOp loop = loopOf.lookup(operand);
      if (!loop || coefficient != 1 || loop.getStepAsInt() != 1 || !used.insert(loop).second)
        return std::nullopt;
      ++ivs;
      count *= loop.getConstantUpperBound() - loop.getConstantLowerBound();
    }
    if (ivs > 1)
      return std::nullopt;
  }
  return count;
}

/// How many times \p ops run in all, where each sits in affine.for loops
/// with constant trip counts only; nullopt otherwise.
static std::optional<int64_t> timesRun(ArrayRef<Operation *> ops) {
  int64_t total = 0;
  for (Operation *op : ops) {
    std::optional<SmallVector<affine::AffineForOp>> loops = enclosingLoops(op);
    if (!loops)
      return std::nullopt;
    int64_t times = 1;
    for (affine::AffineForOp loop : *loops) {
      std::optional<uint64_t> trips = affine::getConstantTripCount(loop);
      if (!trips || *trips > uint64_t(INT64_MAX) ||
          llvm::MulOverflow(times, static_cast<int64_t>(*trips), times))
        return std::nullopt;
    }
    if (llvm::AddOverflow(total, times, total))
      return std::nullopt;
  }
  return total;
}

/// Whether \p stores, a buffer's only accesses in the range of ops
/// affine-data-copy-generate copies for, write every element of the box
/// it would write back: a reason why not (they write 24 of its 64
/// elements, or mqss cannot tell), empty when they do.
static std::string uncoveredCopyOut(ArrayRef<Operation *> stores) {
  auto cannotTell = [](llvm::StringRef why) {
    return ("mqss cannot tell whether its stores write every element of the box the copy "
            "writes back (" +
            why + ")")
        .str();
  };
  // The box as the pass computes it: the union of the stores' regions,
  // parametric in no loop (the range is at the function's top level).
  SmallVector<int64_t> low, high; // per dimension, inclusive
  for (Operation *op : stores) {
    if (!isa<affine::AffineStoreOp>(op))
      return cannotTell("a vector store");
    affine::MemRefRegion region(op->getLoc());
    SmallVector<int64_t> shape;
    std::vector<SmallVector<int64_t, 4>> lbs;
    SmallVector<int64_t> divisors;
    if (failed(region.compute(op, /*loopDepth=*/0)) ||
        !region.getConstantBoundingSizeAndShape(&shape, &lbs, &divisors))
      return cannotTell("the region written has no constant bounds");
    for (unsigned d = 0; d < shape.size(); ++d) {
      if (llvm::any_of(ArrayRef(lbs[d]).drop_back(), [](int64_t c) { return c != 0; }))
        return cannotTell("the region written starts at a symbolic index");
      int64_t first = llvm::divideFloorSigned(lbs[d].back(), divisors[d]);
      int64_t last = first + shape[d] - 1;
      if (low.size() <= d) {
        low.push_back(first);
        high.push_back(last);
      } else {
        low[d] = std::min(low[d], first);
        high[d] = std::max(high[d], last);
      }
    }
  }
  int64_t volume = 1;
  for (auto [first, last] : llvm::zip(low, high))
    if (llvm::MulOverflow(volume, last - first + 1, volume))
      return cannotTell("the box is too large");
  auto uncovered = [&](int64_t count, llvm::StringRef atMost = "") {
    return llvm::formatv("its stores write {0}{1} of the {2} elements of the box the copy "
                         "writes back: the rest would be uninitialized values",
                         atMost, count, volume)
        .str();
  };
  if (stores.size() == 1)
    if (std::optional<int64_t> count =
            elementsWrittenInBox(cast<affine::AffineStoreOp>(stores.front())))
      return *count == volume ? "" : uncovered(*count);
  // Stores that run fewer times than the box has elements cannot fill it
  // (Rodinia's nw writes a 2049x2049 matrix's borders in one loop).
  if (std::optional<int64_t> runs = timesRun(stores); runs && *runs < volume)
    return uncovered(*runs, "at most ");
  // Else counted, element by element.
  if (volume > (int64_t(1) << 22))
    return cannotTell("the box has more than 2^22 elements");
  llvm::BitVector written(volume);
  int64_t budget = int64_t(1) << 20;
  for (Operation *op : stores) {
    auto store = cast<affine::AffineStoreOp>(op);
    std::optional<SmallVector<affine::AffineForOp>> loops = enclosingLoops(op);
    if (!loops)
      return cannotTell("a store under an op other than affine.for");
    llvm::DenseMap<Value, int64_t> values;
    bool enumerated = forEachIteration(*loops, values, budget, [&] {
      std::optional<SmallVector<int64_t>> indices =
          evaluateAt(store.getAffineMap(), store.getMapOperands(), values);
      if (!indices)
        return false;
      int64_t index = 0;
      for (auto [d, v] : llvm::enumerate(*indices)) {
        if (v < low[d] || v > high[d])
          return false;
        index = index * (high[d] - low[d] + 1) + (v - low[d]);
      }
      written.set(index);
      return true;
    });
    if (!enumerated)
      return cannotTell("more than 2^20 iterations, or bounds or indices other than "
                        "constants and loop counters");
  }
  return written.all() ? "" : uncovered(written.count());
}

/// The first op of type \p OpT in \p module that \p matches, as a hazard
/// saying \p why.
template <typename OpT>
static std::optional<PassHazard> firstHazard(ModuleOp module, llvm::function_ref<bool(OpT)> matches,
                                             llvm::StringRef why) {
  std::optional<PassHazard> found;
  module.walk([&](OpT op) {
    if (!matches(op))
      return WalkResult::advance();
    found = PassHazard{op, why.str()};
    return WalkResult::interrupt();
  });
  return found;
}

std::optional<PassHazard> insertPadIntoFillHazard(ModuleOp module) {
  auto misplaced = [](tensor::InsertSliceOp insert) {
    auto pad = insert.getSource().getDefiningOp<tensor::PadOp>();
    auto is = [](int64_t value) {
      return [value](OpFoldResult v) { return isConstantIntValue(v, value); };
    };
    if (!pad || llvm::all_of(insert.getMixedStrides(), is(1)) ||
        llvm::all_of(pad.getMixedLowPad(), is(0)))
      return false;
    // The pattern's destination: a linalg.fill, through inserts into it.
    Value dest = insert.getDest();
    while (auto inner = dest.getDefiningOp<tensor::InsertSliceOp>())
      dest = inner.getDest();
    return static_cast<bool>(dest.getDefiningOp<linalg::FillOp>());
  };
  return firstHazard<tensor::InsertSliceOp>(
      module, misplaced,
      "MLIR 19's canonicalizer would fold this padded insert into the fill it goes into "
      "(FoldInsertPadIntoFill) at the offset plus the low padding, not plus the padding "
      "times the stride: the values would land elsewhere");
}

std::optional<PassHazard> blockPackPaddingHazard(ModuleOp module) {
  // Zero padding is neutral where the body multiplies the inputs (cast,
  // maybe) and adds the product to the accumulator: 0 * y adds nothing.
  auto notNeutral = [](linalg::LinalgOp op) {
    return op.hasPureTensorSemantics() && linalg::isaContractionOpInterface(op) &&
           !llvm::all_of(op.getBlock()->without_terminator(), [](Operation &bodyOp) {
             return isa<arith::MulFOp, arith::MulIOp, arith::AddFOp, arith::AddIOp,
                        complex::MulOp, complex::AddOp, arith::ExtFOp, arith::ExtSIOp,
                        arith::ExtUIOp, arith::SIToFPOp, arith::UIToFPOp, arith::TruncFOp,
                        arith::TruncIOp>(bodyOp);
           });
  };
  return firstHazard<linalg::LinalgOp>(
      module, notNeutral,
      "MLIR 19's linalg-block-pack-matmul would pack this contraction too and pad it with "
      "zeros, but its body does more to the inputs than multiply them (an exp of 0 is 1): "
      "every padded step would add to the result");
}

std::optional<PassHazard> linalgOperandOverlapHazard(ModuleOp module) {
  auto overlaps = [](linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics())
      return false;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Value root = bufferRoot(init.get());
      for (OpOperand &other : op->getOpOperands()) {
        if (&other == &init || !isa<MemRefType>(other.get().getType()) ||
            bufferRoot(other.get()) != root)
          continue;
        // Read and written element for element, each point on its own.
        if (other.get() == init.get() && op.getNumReductionLoops() == 0 &&
            op.getMatchingIndexingMap(&other) == op.getMatchingIndexingMap(&init))
          continue;
        return true;
      }
    }
    return false;
  };
  return firstHazard<linalg::LinalgOp>(
      module, overlaps,
      "this op writes a buffer it also reads (or writes twice) through another view or "
      "indexing: the loops it means read values written earlier in the same op, and tiles "
      "read whole into vectors before any is written compute something else");
}

std::optional<PassHazard> affineCopyOutHazard(ModuleOp module) {
  mlir::ScopedDiagnosticHandler quiet(module.getContext(),
                                      [](Diagnostic &) { return success(); });
  std::optional<PassHazard> found;
  // The pass copies for each top-level affine.for and for each run of other
  // ops between them.
  auto check = [&](ArrayRef<Operation *> range) {
    llvm::MapVector<Value, SmallVector<Operation *>> stores;
    llvm::SmallPtrSet<Value, 8> read;
    for (Operation *root : range)
      root->walk([&](Operation *op) {
        if (auto store = dyn_cast<affine::AffineWriteOpInterface>(op))
          stores[store.getMemRef()].push_back(op);
        else if (auto load = dyn_cast<affine::AffineReadOpInterface>(op))
          read.insert(load.getMemRef());
      });
    for (auto &[memref, writes] : stores) {
      if (read.contains(memref))
        continue; // the copy-in brings the whole box
      std::string why = uncoveredCopyOut(writes);
      if (!why.empty()) {
        found = PassHazard{writes.front(),
                           "MLIR 19's affine-data-copy-generate would write this buffer "
                           "back whole from a local copy it does not fill (this nest "
                           "writes it and does not read it), and " +
                               why};
        return;
      }
    }
  };
  module.walk([&](func::FuncOp function) {
    for (Block &block : function) {
      SmallVector<Operation *> run;
      for (Operation &op : block.without_terminator()) {
        if (!isa<affine::AffineForOp>(op)) {
          run.push_back(&op);
          continue;
        }
        check(run);
        run.clear();
        check(&op);
        if (found)
          return WalkResult::interrupt();
      }
      check(run);
      if (found)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

std::optional<PassHazard> returnedStackBuffer(func::FuncOp entry) {
  std::optional<PassHazard> found;
  entry.walk([&](func::ReturnOp ret) {
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      Value source = value;
      while (Operation *def = source.getDefiningOp()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(def))
          source = view.getViewSource();
        else if (auto cast = dyn_cast<memref::CastOp>(def))
          source = cast.getSource();
        else
          break;
      }
      if (auto alloca = source.getDefiningOp<memref::AllocaOp>()) {
        found = PassHazard{alloca, llvm::formatv("result {0} of @{1} is this memref.alloca's "
                                                 "buffer, which is freed when @{1} returns: "
                                                 "its caller reads a dangling stack buffer. "
                                                 "Allocate it with memref.alloc",
                                                 index, entry.getSymName())
                                       .str()};
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

std::optional<PassHazard> staticOutOfBoundsAccess(func::FuncOp entry) {
  auto module = entry->getParentOfType<ModuleOp>();
  SmallVector<func::FuncOp> worklist = {entry};
  llvm::SmallPtrSet<Operation *, 8> seen = {entry};
  std::optional<PassHazard> found;
  while (!worklist.empty() && !found) {
    func::FuncOp function = worklist.pop_back_val();
    // Branches between blocks may skip an access (or a call): one block only.
    if (!function.getBody().hasOneBlock())
      continue;
    function.walk([&](Operation *op) {
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = module ? module.lookupSymbol<func::FuncOp>(call.getCalleeAttr()) : nullptr;
        if (callee && !callee.isExternal() && seen.insert(callee).second)
          worklist.push_back(callee);
        return WalkResult::advance();
      }
      // Stores only: HLS frontends (HeteroCL, Allo) pad by loading at -1
      // and selecting another value there, which runs fine.
      auto store = dyn_cast<affine::AffineStoreOp>(op);
      if (!store)
        return WalkResult::advance();
      MemRefType type = store.getMemRefType();
      if (!type.hasStaticShape())
        return WalkResult::advance();
      std::optional<SmallVector<std::pair<int64_t, int64_t>>> ranges =
          exactIndexRanges(op, store.getAffineMap(), store.getMapOperands());
      if (!ranges)
        return WalkResult::advance();
      for (auto [dimension, range] : llvm::enumerate(*ranges)) {
        int64_t extent = type.getDimSize(dimension);
        if (range.first >= 0 && range.second < extent)
          continue;
        int64_t past = range.first < 0 ? range.first : range.second;
        found = PassHazard{op, llvm::formatv("this store writes index {0} along dimension {1} "
                                             "of a {2}, whose extent there is {3}: the kernel "
                                             "writes past its buffer as written",
                                             past, dimension, type, extent)
                                   .str()};
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  }
  return found;
}

namespace {
/// What the walk needs to know about an op that depends only on what op it
/// is. Classifying takes a dozen interface and type-id checks, several
/// times the cost of the rest of an op's visit, and the modules a decision
/// looks at are small: so it is done once per registered op per thread.
struct OpClass {
  unsigned count = 0;
  bool classified = false;
  bool isFunc = false, isLinalg = false, isGenericLinalg = false, isTensorEmpty = false;
  bool isTransform = false, isVector = false, isAffineFor = false, isScfFor = false;
  bool isParallelLoop = false, isLoopLike = false, isAffineMemory = false;
  bool isMemory = false, isArith = false, isConstant = false;
};

OpClass classify(Operation *op) {
  OpClass c;
  c.classified = true;
  Dialect *dialect = op->getDialect();
  llvm::StringRef ns = dialect ? dialect->getNamespace() : "";
  c.isFunc = isa<func::FuncOp>(op);
  c.isLinalg = isa<linalg::LinalgOp>(op);
  c.isGenericLinalg = isa<linalg::GenericOp>(op);
  c.isTensorEmpty = isa<tensor::EmptyOp>(op);
  c.isTransform = ns == "transform";
  c.isVector = ns == "vector";
  c.isAffineFor = isa<affine::AffineForOp>(op);
  c.isScfFor = isa<scf::ForOp>(op);
  c.isParallelLoop = isa<scf::ParallelOp, scf::ForallOp, affine::AffineParallelOp>(op);
  c.isLoopLike = isa<LoopLikeOpInterface>(op) && !c.isFunc;
  c.isAffineMemory = isa<affine::AffineLoadOp, affine::AffineStoreOp,
                         affine::AffineVectorLoadOp, affine::AffineVectorStoreOp>(op);
  c.isMemory = c.isAffineMemory || ns == "memref" ||
               isa<vector::TransferReadOp, vector::TransferWriteOp, vector::LoadOp,
                   vector::StoreOp, tensor::ExtractOp, tensor::InsertOp,
                   tensor::ExtractSliceOp, tensor::InsertSliceOp>(op);
  c.isArith = ns == "arith" || ns == "math";
  c.isConstant = isa<arith::ConstantOp>(op);
  return c;
}

OpClass classifyCached(Operation *op) {
  std::optional<RegisteredOperationName> registered = op->getRegisteredInfo();
  if (!registered)
    return classify(op);
  // A registered op's TypeID is its C++ class's: the same in every context.
  thread_local llvm::DenseMap<TypeID, OpClass> cache;
  auto [it, inserted] = cache.try_emplace(registered->getTypeID());
  if (inserted)
    it->second = classify(op);
  return it->second;
}
} // namespace

IRSummary summarize(ModuleOp module) {
  IRSummary s;
  // Keyed by interned name (a pointer hash).
  llvm::SmallDenseMap<OperationName, OpClass, 32> classes;
  auto classOf = [&](Operation *op) -> OpClass & {
    OpClass &c = classes[op->getName()];
    if (!c.classified)
      c = classifyCached(op);
    return c;
  };
  // Loop depth of each loop op, from its nearest enclosing loop's.
  llvm::SmallDenseMap<Operation *, std::pair<unsigned, unsigned>, 16> depths; // any, affine
  llvm::SmallPtrSet<Operation *, 16> outerLoops;
  LoopIntervals intervals; // of induction variables, for loop bounds that may cross
  llvm::SmallVector<Operation *, 32> loops;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module.getOperation())
      return;
    OpClass &c = classOf(op);
    ++c.count;
    ++s.numOps;
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        ++s.numBlocks;
        s.numBlockArgs += block.getNumArguments();
        if (!s.hasTensors && llvm::any_of(block.getArgumentTypes(), isTensor))
          s.hasTensors = true;
      }
    // Operands need no look: each is a block argument or an op result in
    // this module, and those are all looked at.
    if (!s.hasTensors && llvm::any_of(op->getResultTypes(), isTensor))
      s.hasTensors = true;
    if (c.isFunc) {
      auto func = cast<func::FuncOp>(op);
      ++s.numFuncs;
      if (llvm::any_of(func.getFunctionType().getInputs(), isTensor) ||
          llvm::any_of(func.getFunctionType().getResults(), isTensor))
        s.hasTensors = true;
      if (func.isExternal() && llvm::any_of(func.getFunctionType().getResults(), isTensor) &&
          !SymbolTable::symbolKnownUseEmpty(func, module))
        ++s.numCalledTensorDeclarations;
      unsigned topLevel = 0;
      if (!func.isExternal())
        for (Operation &child : func.getBody().front())
          topLevel += isa<affine::AffineForOp>(child);
      s.maxTopLevelAffineLoops = std::max(s.maxTopLevelAffineLoops, topLevel);
      return;
    }

    if (c.isLinalg) {
      s.linalgOps.push_back(describeLinalg(cast<linalg::LinalgOp>(op)));
      if (c.isGenericLinalg)
        ++s.numGenericLinalg;
      else
        ++s.numNamedLinalg;
      s.numGeneralizable += !c.isGenericLinalg && !isa<linalg::MapOp>(op);
    }
    s.numTensorEmpty += c.isTensorEmpty;
    s.numTransformOps += c.isTransform;
    s.numVectorOps += c.isVector;
    s.numScfFor += c.isScfFor;
    if (c.isScfFor) {
      auto forOp = cast<scf::ForOp>(op);
      std::optional<int64_t> step = getConstantIntValue(forOp.getStep());
      if (!step || *step <= 0)
        s.allScfForStepsConstant = false;
      s.numScfForNonIndex += !forOp.getInductionVar().getType().isIndex();
      // (The peeler leaves a loop of step 1 alone.)
      std::optional<int64_t> lower = getConstantIntValue(forOp.getLowerBound());
      s.numScfForMaybeEmptyFromAbove +=
          !constantTripCount(forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()) &&
          (!lower || *lower != 0) && (!step || *step > 1);
    }
    s.numParallelLoops += c.isParallelLoop;
    if (c.isLoopLike) {
      // Pre-order: the enclosing loop, if any, already has its depth.
      std::pair<unsigned, unsigned> depth{1, c.isAffineFor ? 1 : 0};
      for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
        if (auto it = depths.find(parent); it != depths.end()) {
          depth.first += it->second.first;
          depth.second += it->second.second;
          outerLoops.insert(parent);
          break;
        }
      depths[op] = depth;
      s.maxLoopDepth = std::max(s.maxLoopDepth, depth.first);
      loops.push_back(op);
      if (c.isAffineFor) {
        auto forOp = cast<affine::AffineForOp>(op);
        if (forOp.getNumResults() > 0) {
          ++s.numAffineForWithResults;
          auto yield = cast<affine::AffineYieldOp>(forOp.getBody()->getTerminator());
          for (Value operand : yield.getOperands())
            if (llvm::is_contained(forOp.getBody()->getArguments(), operand)) {
              ++s.numAffineForYieldingArguments;
              break;
            }
          llvm::SmallPtrSet<Value, 4> inits;
          for (Value init : forOp.getInits())
            if (!inits.insert(init).second) {
              ++s.numAffineForSharedInits;
              break;
            }
        }
        ++s.numAffineFor;
        if (!forOp.hasConstantBounds()) {
          s.allAffineBoundsConstant = false;
          if (forOp.getStepAsInt() != 1)
            s.steppedLoopsHaveConstantBounds = false;
        }
        s.numAffineForMaybeEmptyFromAbove += mayEndBelowStart(forOp, intervals);
        if (s.allAffineTripsConstant && !tripCountIsConstant(forOp))
          s.allAffineTripsConstant = false;
        s.maxAffineDepth = std::max(s.maxAffineDepth, depth.second);
      }
    }
    s.numAffineMemoryOps += c.isAffineMemory;
    if (c.isAffineMemory) {
      // The loops around it, from the nearest one's depths: any loop beyond
      // the affine.for ones (scf.for, scf.while, ...) hides a back edge.
      std::pair<unsigned, unsigned> around{0, 0};
      for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
        if (auto it = depths.find(parent); it != depths.end()) {
          around = it->second;
          break;
        }
      s.numAffineMemoryOpsInScfLoops += around.first > around.second;
      if (auto store = dyn_cast<affine::AffineWriteOpInterface>(op))
        s.numAffineStoresBelowRank += around.second < store.getMemRefType().getRank();
      MemRefType memref = isa<affine::AffineReadOpInterface>(op)
                              ? cast<affine::AffineReadOpInterface>(op).getMemRefType()
                              : cast<affine::AffineWriteOpInterface>(op).getMemRefType();
      Type element = memref.getElementType();
      if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 != 0)
        ++s.numSubByteAffineMemoryOps;
      s.numRankZeroAffineMemoryOps += memref.getRank() == 0;
      s.numStridedAffineMemoryOps += stridesAlongNearestLoop(op);
      s.numAffineMemoryOpsWithReuse += !isStream(op);
    }
    s.numMemoryOps += c.isMemory;
    if (c.isArith) {
      ++s.numArithOps;
      if (op->getNumResults() == 1 && !c.isConstant) {
        Type type = op->getResult(0).getType();
        if (type.isIntOrFloat() || isa<VectorType>(type))
          ++s.numVectorisableArith;
      }
    }
  });
  s.opCounts.reserve(classes.size());
  for (const auto &[name, c] : classes)
    if (c.count > 0)
      s.opCounts.emplace_back(name.getStringRef(), c.count);
  if (s.opCount("affine.if") > 0)
    s.writtenMemRefAccessedInElse = writtenMemRefAccessedInElse(module.getOperation());
  // Innermost loops (no loop nested inside) with a constant trip count.
  for (Operation *op : loops) {
    if (outerLoops.contains(op))
      continue;
    if (auto forOp = dyn_cast<affine::AffineForOp>(op)) {
      if (forOp.getStepAsInt() != 1)
        s.innermostAffineStepsOne = false;
      if (std::optional<int64_t> trip = constantTrips(forOp)) {
        s.innermostTripCounts.push_back(*trip);
        s.innermostAffineTripGcd = std::gcd(s.innermostAffineTripGcd, *trip);
      } else {
        s.innermostAffineConstant = false;
      }
    } else if (auto scfFor = dyn_cast<scf::ForOp>(op)) {
      if (auto trip = constantTripCount(scfFor.getLowerBound(), scfFor.getUpperBound(),
                                        scfFor.getStep()))
        s.innermostTripCounts.push_back(*trip);
    }
  }
  return s;
}

/// The elements of \p type when it is a vector, or a ranked tensor and
/// \p tensors: a static shape's product (a scalable dimension counted at
/// its minimum); 1 for other types.
static double elementsOf(Type type, bool tensors) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !(isa<VectorType>(shaped) || (tensors && isa<RankedTensorType>(shaped))) ||
      !shaped.hasStaticShape())
    return 1;
  double elements = 1;
  for (int64_t size : shaped.getShape())
    elements *= static_cast<double>(size);
  return elements;
}

/// The operations one execution of \p op stands for, as the loops or the
/// linalg op it stands for would execute them: an elementwise op on a vector
/// or a tensor (arith.addf on vector<8x32xf32>) computes each element of
/// its result, vector.contract each point of its iteration space, a
/// reduction each element of its source, an insert each element it
/// inserts, a tensor gather or scatter each element it moves, and other
/// vector ops each element of their result (of the vector they store,
/// without one). 1 for other ops.
static double opsPerExecution(Operation &op) {
  if (auto contract = dyn_cast<vector::ContractionOp>(op)) {
    SmallVector<int64_t> bounds;
    contract.getIterationBounds(bounds);
    double points = 1;
    for (int64_t bound : bounds)
      points *= static_cast<double>(bound);
    return points;
  }
  if (isa<vector::MultiDimReductionOp, vector::ReductionOp>(op))
    return elementsOf(op.getOperand(0).getType(), false);
  if (auto insert = dyn_cast<vector::InsertOp>(op))
    return elementsOf(insert.getSource().getType(), false);
  if (auto insert = dyn_cast<vector::InsertStridedSliceOp>(op))
    return elementsOf(insert.getSource().getType(), false);
  // A gather or a scatter moves each element of the slices it gathers or
  // scatters.
  if (auto gather = dyn_cast<tensor::GatherOp>(op))
    return elementsOf(gather.getType(), true);
  if (auto scatter = dyn_cast<tensor::ScatterOp>(op))
    return elementsOf(scatter.getSource().getType(), true);
  bool elementwise = op.hasTrait<OpTrait::Elementwise>();
  if (!elementwise && !isa_and_present<vector::VectorDialect>(op.getDialect()))
    return 1;
  double most = 1;
  for (Type type : op.getResultTypes())
    most = std::max(most, elementsOf(type, elementwise));
  if (op.getNumResults() == 0)
    for (Type type : op.getOperandTypes())
      most = std::max(most, elementsOf(type, false));
  return most;
}

namespace {
/// Counts what one call of a function executes (executedOps).
struct ExecutedOpsCounter {
  ExecutedOpsCounter(double enough, const FunctionOps *declared)
      : enough(enough), declared(declared) {}

  double enough;
  const FunctionOps *declared;
  SymbolTableCollection symbols;
  /// The functions being counted: a call into one of them is recursion.
  llvm::SmallVector<Operation *, 4> active;
  /// Functions counted to the end: a callee called from many places (or
  /// many times over in a chain) is counted once.
  llvm::DenseMap<Operation *, std::optional<double>> counted;

  std::optional<double> function(func::FuncOp function) {
    if (auto known = counted.find(function); known != counted.end())
      return known->second;
    if (function.isExternal() || !function.getBody().hasOneBlock() ||
        llvm::is_contained(active, function.getOperation()))
      return std::nullopt; // a recursion: every function on it is not static
    active.push_back(function);
    double total = 0;
    std::optional<double> result;
    if (block(function.getBody().front(), 1, total))
      result = total;
    active.pop_back();
    if (total < enough) // else stopped early: only a lower bound
      counted[function] = result;
    return result;
  }

  /// Adds to \p total what \p call's callee executes, \p times over;
  /// false when that is not static.
  bool call(CallOpInterface call, double times, double &total) {
    auto symbol = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
    auto callee = symbol ? dyn_cast_if_present<func::FuncOp>(
                               symbols.lookupNearestSymbolFrom(call, symbol))
                         : nullptr;
    if (!callee)
      return false; // indirect, or not a func.func
    std::optional<double> ops;
    if (!callee.isExternal()) {
      // Counted from zero: a callee's count reaching `enough` alone, not
      // with what came before, is what stops it early.
      double saved = enough;
      enough = std::max(0.0, (enough - total) / times);
      ops = function(callee);
      enough = saved;
    } else if (declared) {
      auto found = declared->find(callee.getSymName());
      if (found != declared->end())
        ops = found->second;
    }
    if (!ops)
      return false;
    total += times * *ops;
    return true;
  }

  /// Adds to \p total the ops \p block executes, each \p times over; false
  /// when some count is not static. Stops once \p total reaches `enough`.
  bool block(Block &block, double times, double &total) {
    for (Operation &op : block) {
      if (total >= enough)
        return true;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op)) {
        double points = 1;
        for (int64_t range : linalgOp.getStaticLoopRanges()) {
          if (ShapedType::isDynamic(range))
            return false;
          points *= static_cast<double>(range);
        }
        // The body's ops run at every point.
        total += times * points *
                 static_cast<double>(linalgOp.getBlock()->getOperations().size());
        continue;
      }
      if (op.getName().getDialectNamespace() == "tosa")
        return false;
      total += times * opsPerExecution(op);
      if (op.getNumRegions() == 0) {
        if (auto callOp = dyn_cast<CallOpInterface>(op))
          if (!call(callOp, times, total))
            return false;
        continue;
      }
      double trips = 1;
      if (auto forOp = dyn_cast<affine::AffineForOp>(op)) {
        std::optional<int64_t> trip = staticTrips(forOp);
        if (!trip)
          return false;
        trips = static_cast<double>(*trip);
      } else if (isa<scf::ForOp, scf::ParallelOp, scf::ForallOp>(op)) {
        std::optional<double> trip = staticTrips(cast<LoopLikeOpInterface>(op));
        if (!trip)
          return false;
        trips = *trip;
      } else if (auto parallel = dyn_cast<affine::AffineParallelOp>(op)) {
        std::optional<SmallVector<int64_t, 8>> ranges = parallel.getConstantRanges();
        if (!ranges)
          return false;
        for (auto [range, step] : llvm::zip(*ranges, parallel.getSteps()))
          trips *= static_cast<double>(step > 0 ? llvm::divideCeil(std::max<int64_t>(range, 0), step) : 0);
      } else if (!isa<scf::IfOp, affine::AffineIfOp, scf::ExecuteRegionOp, scf::InParallelOp>(
                     op)) {
        return false; // while loops, other dialects' regions
      }
      // A branch of an if is counted as if taken: an upper bound.
      for (Region &region : op.getRegions()) {
        if (region.empty())
          continue;
        if (!region.hasOneBlock() || !this->block(region.front(), times * trips, total))
          return false;
      }
    }
    return true;
  }
};
} // namespace

static bool isSparseTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getEncoding() &&
         tensor.getEncoding().getDialect().getNamespace() == "sparse_tensor";
}

/// An op of a GPU dialect: a kernel launch, a gpu.module, a thread id, an
/// NVVM or ROCDL intrinsic (which x86's backend cannot select).
static bool isGpuOp(Operation *op) {
  return llvm::is_contained({"gpu", "nvgpu", "nvvm", "amdgpu", "rocdl"},
                            op->getName().getDialectNamespace());
}

/// A gpu op that host code runs through the GPU runtime library (the
/// runtime's memory and stream functions) rather than a kernel.
static bool isGpuRuntimeCall(Operation *op) {
  return llvm::is_contained({"gpu.alloc", "gpu.dealloc", "gpu.memcpy", "gpu.memset", "gpu.wait",
                             "gpu.host_register", "gpu.host_unregister"},
                            op->getName().getStringRef());
}

/// The op that writes through \p slice, a tensor.extract_slice with a zero
/// stride (several of its elements one element of its source), as its
/// destination; null when none does.
static Operation *writerThroughZeroStride(tensor::ExtractSliceOp slice) {
  if (llvm::none_of(slice.getStaticStrides(), [](int64_t stride) { return stride == 0; }))
    return nullptr;
  for (OpOperand &use : slice.getResult().getUses())
    if (auto writer = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        writer && writer.isDpsInit(&use))
      return writer;
  return nullptr;
}

/// A tensor.pack with a static inner tile whose place in the result type is
/// dynamic (`inner_tiles = [32, 32]` into tensor<?x?x?x?xf32>).
static bool hasUntypedStaticTile(tensor::PackOp pack) {
  ArrayRef<int64_t> tiles = pack.getStaticInnerTiles();
  ArrayRef<int64_t> shape = pack.getDestType().getShape().take_back(tiles.size());
  for (auto [tile, size] : llvm::zip(tiles, shape))
    if (!ShapedType::isDynamic(tile) && ShapedType::isDynamic(size))
      return true;
  return false;
}

std::string refusalReason(ModuleOp module) {
  Operation *user = nullptr;
  Operation *zeroStrideWriter = nullptr;
  Type sparse;
  auto check = [&](Operation *op, TypeRange types) {
    for (Type type : types)
      if (isSparseTensor(type)) {
        user = op;
        sparse = type;
        return true;
      }
    return false;
  };
  module.walk([&](Operation *op) {
    bool found = check(op, op->getOperandTypes()) || check(op, op->getResultTypes());
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      found = found || check(op, function.getArgumentTypes()) ||
              check(op, function.getResultTypes());
    if ((isa<ml_program::GlobalStoreOp>(op) || isGpuOp(op)) && !found) {
      user = op;
      found = true;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op); slice && !found)
      if ((zeroStrideWriter = writerThroughZeroStride(slice))) {
        user = op;
        found = true;
      }
    if (auto pack = dyn_cast<tensor::PackOp>(op); pack && !found && hasUntypedStaticTile(pack)) {
      user = op;
      found = true;
    }
    if (isa<tensor::GatherOp, tensor::ScatterOp>(op) && !found) {
      user = op;
      found = true;
    }
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!user)
    return "";
  std::string where = fileLineColumn(user->getLoc()).value_or("");
  if (!where.empty())
    where += ": ";
  std::string op = "'" + user->getName().getStringRef().str() + "'";
  if (zeroStrideWriter)
    return where + op + " has a zero stride (several of its elements are one element of "
           "its source) and is the destination of '" + zeroStrideWriter->getName().getStringRef().str() +
           "': MLIR 19's one-shot bufferization writes through it in place, so every "
           "pipeline, the naive one too, would compute something other than the tensors "
           "say (an upstream bug). Copy the slice into a fresh tensor first (tensor.empty "
           "and linalg.copy)";
  if (isa<tensor::PackOp>(user))
    return where + op + " has static inner tiles that its result type leaves dynamic ('?'): "
           "MLIR 19's lowering of tensor.pack builds an invalid tensor.expand_shape from it "
           "(an upstream bug), so no pipeline can compile it. Write the tile sizes in the "
           "result type (tensor<?x?x32x32xf32> for inner_tiles = [32, 32])";
  if (isa<tensor::GatherOp, tensor::ScatterOp>(user))
    return where + op + ": MLIR 19 has neither a bufferization nor a lowering for it, so no "
           "pipeline can compile the module. Write it as a linalg.generic that reads its "
           "elements with tensor.extract (as torch-mlir and StableHLO's lowering write a "
           "gather), or a scatter as tensor.insert in an scf.for";
  if (isGpuRuntimeCall(user))
    return where + op + " calls a GPU runtime (device memory, streams): mqss selects, lowers "
           "and measures pipelines for the host CPU, where no GPU runtime is linked. Host "
           "buffers are memref.alloc's";
  if (isGpuOp(user))
    return where + op + " is GPU code (OneFlow and IREE emit such modules): mqss selects, "
           "lowers and measures pipelines for the host CPU, where GPU kernels do not run. "
           "Lower them with MLIR's GPU pipelines (mlir-opt-19 --gpu-lower-to-nvvm-pipeline)";
  if (!sparse)
    return where + op + " updates a mutable ml_program global: MLIR 19's bufferization "
           "stores a fresh, uninitialized buffer into the global instead of the value (an "
           "upstream bug), so every pipeline mqss could choose would lose the update. Pass "
           "the state in as an argument and return its new value instead";
  std::string type;
  llvm::raw_string_ostream os(type);
  sparse.print(os);
  return where + op + " computes on a sparse tensor (" + type +
         "): mqss chooses pipelines for dense code, and bufferizing would silently "
         "make the tensor dense. Compile sparse kernels with MLIR's sparsifier "
         "(mlir-opt-19 --sparsifier)";
}

std::optional<double> executedOps(func::FuncOp function, double enough,
                                  const FunctionOps *declared) {
  ExecutedOpsCounter counter(enough, declared);
  return counter.function(function);
}

FunctionOps executedOpsByFunction(ModuleOp module, double enough) {
  FunctionOps counts;
  ExecutedOpsCounter counter(enough, nullptr);
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      counts[function.getSymName()] = counter.function(function);
  return counts;
}

} // namespace mqss
