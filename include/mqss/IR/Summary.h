//===- Summary.h - One walk over a module: what it contains, which stage ---===//
//
// Legality masks and the feature encoder both need to know what a module
// holds (tensors? linalg ops of which kind and shape? affine or scf loops?).
// One walk collects it; stage detection reads it.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_IR_SUMMARY_H
#define MQSS_IR_SUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <string>
#include <optional>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func
namespace mlir::affine {
class AffineForOp;
} // namespace mlir::affine

namespace mqss {

/// Lowering stages, in order. An episode moves forward through them.
enum class Stage { Tensor, Linalg, Loops, Finish };
llvm::StringRef stageName(Stage stage);
std::optional<Stage> parseStage(llvm::StringRef name);

/// One linalg op as legality masks see it.
struct LinalgOpInfo {
  enum class Kind { Contraction, Convolution, Elementwise, Reduction, Other };
  Kind kind = Kind::Other;
  std::string name;
  /// Static loop ranges; ShapedType::kDynamic where not static.
  std::vector<int64_t> loopRanges;
  unsigned numParallel = 0;
  unsigned numReduction = 0;
  /// Parallel loops before the first reduction one (or all).
  unsigned leadingParallel = 0;
  /// A result is what its function returns first.
  bool producesFirstReturned = false;
  bool onTensors = false;
  bool hasUnitDim = false;
  /// An operand's elements are narrower than a byte (i1 masks): vectorized,
  /// they would reach memory as packed bits.
  bool hasSubByteOperand = false;
  /// An operand's elements are complex: MLIR 19 vectorizes only integer and
  /// float elements, and its block packing of a complex matmul crashes.
  bool hasComplexOperand = false;
  /// Ops in the body, its yield included (linalg.generic only, else 0).
  unsigned bodyOps = 0;
  /// The body yields one of its output block arguments unchanged.
  bool yieldsOutputArgument = false;
  /// An input is a scalar, not a tensor or memref (linalg.generic only: a
  /// generalized linalg.fill's value).
  bool hasScalarInput = false;
  bool allStatic() const;
};

struct IRSummary {
  bool hasTensors = false;
  unsigned numOps = 0;
  unsigned numFuncs = 0;
  unsigned numBlocks = 0;
  unsigned numBlockArgs = 0;
  std::vector<LinalgOpInfo> linalgOps;
  unsigned numNamedLinalg = 0;
  /// Named linalg ops linalg-generalize-named-ops rewrites: all but
  /// linalg.map, which MLIR 19 leaves as it is.
  unsigned numGeneralizable = 0;
  unsigned numGenericLinalg = 0;
  unsigned numTensorEmpty = 0;
  unsigned numAffineFor = 0;
  unsigned numScfFor = 0;
  unsigned numParallelLoops = 0; ///< scf.parallel, scf.forall, affine.parallel
  unsigned numVectorOps = 0;
  unsigned numMemoryOps = 0;     ///< loads, stores, transfers, copies
  unsigned numAffineMemoryOps = 0;
  unsigned numArithOps = 0;      ///< arith + math compute ops
  unsigned numVectorisableArith = 0; ///< float/int arithmetic on scalars or vectors
  unsigned numTransformOps = 0;
  unsigned maxLoopDepth = 0;     ///< any loop kind, nested
  unsigned maxAffineDepth = 0;
  unsigned maxTopLevelAffineLoops = 0; ///< sibling affine.for nests in one function
  /// Innermost static trip counts seen (affine/scf loops with constant bounds).
  std::vector<int64_t> innermostTripCounts;
  /// affine.for ops that carry values (iter_args), and those whose yield
  /// forwards one of their body's arguments: an iter_arg (a rotation of
  /// loop-carried values) or the induction variable (the last index seen).
  unsigned numAffineForWithResults = 0;
  unsigned numAffineForYieldingArguments = 0;
  /// An affine access in an affine.if's else branch touches a memref an
  /// affine store writes: MLIR 19's dependence analysis gives the access the
  /// then branch's condition, and may see no dependence through it.
  bool writtenMemRefAccessedInElse = false;
  /// affine.for ops two of whose iter_args start from the same value (two
  /// accumulators both from a zero constant).
  unsigned numAffineForSharedInits = 0;
  /// Whether every innermost affine.for has constant bounds, and the gcd of
  /// their trip counts (0 if there are none).
  bool innermostAffineConstant = true;
  /// Whether every affine.for has constant bounds (no triangular nests).
  bool allAffineBoundsConstant = true;
  /// Whether every affine.for runs a constant number of iterations: constant
  /// bounds, or bounds a constant apart (full tiles), not triangular.
  bool allAffineTripsConstant = true;
  /// Whether every innermost affine.for steps by 1 (unrolling leaves larger
  /// steps behind; tiling only on the outer, tile loops).
  bool innermostAffineStepsOne = true;
  /// Whether every affine.for stepping by more than 1 has constant bounds
  /// (tile loops do; a point loop `%i to %i + 16 step 2`, after unrolling
  /// and tiling, does not).
  bool steppedLoopsHaveConstantBounds = true;
  /// Affine loads and stores of a 0-d memref (an accumulator, memref<f32>):
  /// MLIR 19's affine-data-copy-generate crashes on a nest holding one.
  unsigned numRankZeroAffineMemoryOps = 0;
  /// Whether every scf.for steps by a positive constant.
  bool allScfForStepsConstant = true;
  /// Functions declared without a body, returning a tensor, and called:
  /// one-shot bufferization cannot give them a buffer type.
  unsigned numCalledTensorDeclarations = 0;
  /// scf.for loops counting in an integer type rather than index
  /// (`scf.for %i = %lb to %ub step %s : i32`).
  unsigned numScfForNonIndex = 0;
  /// Loops whose upper bound may fall below the lower one: `4 to %n`,
  /// `1 to %i`, `%i + 2 to 16` (any bound known only at run time or from
  /// an outer loop, but for a loop from 0 to a size, and for an affine.for
  /// whose bounds' ranges show they cannot cross).
  unsigned numAffineForMaybeEmptyFromAbove = 0;
  unsigned numScfForMaybeEmptyFromAbove = 0;
  /// Affine loads and stores inside an scf loop (for, while, parallel),
  /// whose back edges affine analyses do not see.
  unsigned numAffineMemoryOpsInScfLoops = 0;
  /// Affine loads and stores that are not streams (see isStream in
  /// Summary.cpp): where none is, tiling and the super-vectorizer have
  /// nothing to gain over LLVM's own vectorizer.
  unsigned numAffineMemoryOpsWithReuse = 0;
  /// Affine stores with fewer affine loops around them than their memref has
  /// dimensions: a row written by one iteration, as unrolling leaves it.
  unsigned numAffineStoresBelowRank = 0;
  int64_t innermostAffineTripGcd = 0;
  /// Affine loads and stores of memrefs whose elements are narrower than a
  /// byte (i1 masks): LLVM packs a vector of them into bits, the memref
  /// holds one per byte.
  unsigned numSubByteAffineMemoryOps = 0;
  /// Affine loads and stores that move along their nearest loop other than
  /// by 0 or 1 element per iteration (`a[2 * i]`, `a[31 - i]`,
  /// `a[i floordiv 2]`): MLIR 19's super-vectorizer reads and writes them as
  /// contiguous vectors.
  unsigned numStridedAffineMemoryOps = 0;
  /// (op name, count) for each op name present, for the statistical
  /// features, in no particular order. The names are the MLIRContext's:
  /// valid while it lives.
  std::vector<std::pair<llvm::StringRef, unsigned>> opCounts;
  unsigned opCount(llvm::StringRef name) const;

  unsigned numLinalg() const { return linalgOps.size(); }
  unsigned countLinalg(LinalgOpInfo::Kind kind) const;
  Stage stage() const;
};

/// Walks \p module once.
IRSummary summarize(mlir::ModuleOp module);

/// The first top-level affine.for whose perfectly nested band has a
/// dependence with a negative distance along one of the band's loops (an
/// in-place stencil such as Seidel's), or null. Tiling such a band, or
/// unroll-and-jamming its outer loop, runs a dependent iteration before its
/// source; MLIR 19's affine-loop-tile and affine-loop-unroll-jam do not
/// check. Exact (Presburger) where a quick test cannot decide: it may take
/// milliseconds, so it is not part of summarize().
mlir::Operation *affineNestWithBackwardDependence(mlir::ModuleOp module);

/// Where an upstream pass would compute something else on a module: the
/// first op that makes it unsafe, and why.
struct PassHazard {
  mlir::Operation *op;
  std::string why;
};

/// A loop MLIR 19's affine-loop-unroll-jam would jam wrongly: it takes each
/// function's first op, when that is an affine.for, and runs the copies of
/// each run of non-loop ops in its body (recursively through inner loops)
/// side by side. Where the body holds more than one such run (an imperfect
/// nest: two inner loops, an op before an inner loop) the copy for the next
/// iteration then runs before the rest of this one, which is safe only when
/// no dependence runs between its iterations (upstream's isLoopParallel).
/// Found by a random loop-program generator. A perfect nest, a single run
/// in its innermost body, is checked by affineNestWithBackwardDependence; a
/// loop whose inner loops' bounds depend on it the pass leaves alone.
std::optional<PassHazard> affineUnrollJamHazard(mlir::ModuleOp module);

/// How an affine load or store moves along an enclosing affine.for, its map
/// composed with the affine.apply ops feeding it (as
/// convert-linalg-to-affine-loops leaves them).
struct AccessMotion {
  /// The loop's induction variable reaches one of its indices.
  bool moves = false;
  /// How it moves other than by 0 or 1 element per iteration (a coefficient
  /// of 2 or -1, the variable under floordiv, mod or ceildiv, or as a
  /// symbol), which MLIR 19's super-vectorizer reads and writes as
  /// contiguous lanes; empty when it does not.
  std::string irregular;
};
AccessMotion accessMotionAlong(mlir::Operation *access, mlir::affine::AffineForOp loop);

/// Whether \p loop runs at least once whenever it is reached: a constant
/// trip count above 0, or bounds (of induction variables and constants)
/// whose difference stays positive over the loops around it (a window
/// `max(%i - 1, 0) to min(%i + 2, 16)`).
bool alwaysRuns(mlir::affine::AffineForOp loop);

/// Sibling affine nests (two or more affine.for in one block) that MLIR 19's
/// affine-loop-fusion miscompiles, found by a sweep of upstream's own fusion
/// tests: a nest that updates a buffer in place which a sibling reaches
/// through other elements or loops (the fused slice runs the update a second
/// time beside the kept nest, or on a private buffer never given the old
/// values; a reduction into `m[i]` read as `m[i]` by a sibling over the same
/// `i` is fused right), and loops with a step other than 1 (nests of
/// different steps are fused and the producer's other iterations dropped).
std::optional<PassHazard> affineFusionHazard(mlir::ModuleOp module);

/// What MLIR 19's affine-loop-invariant-code-motion moves wrongly (found by
/// an action-level scan): a load past a write it does not see (a
/// memref.store, a call, a store through a view of the buffer). What it
/// hoists out of loops that may run zero times is found by running it on a
/// copy (licmZeroTripHazard in the action catalog).
std::optional<PassHazard> affineLicmHazard(mlir::ModuleOp module);

/// Which affine nests affineAliasHazard takes together: as far as the pass
/// it guards moves accesses.
enum class NestScope {
  Each,     ///< each outermost nest (data copies, vectorization)
  Band,     ///< each outermost nest whose perfectly nested band has two loops
            ///< or more (tiling, unroll-and-jam)
  Siblings, ///< the nests of one block together (fusion)
};

/// A buffer that affine loop nests reach two ways, one of them writing it:
/// under two names (the buffer and a memref.cast, subview or other view of
/// it); or, with \p nonAffine, by affine accesses and by other ops
/// (memref.load/store, vector transfers, calls), or written by other ops
/// only. MLIR 19's affine dependence analyses compare affine accesses by
/// memref value and skip other ops: affine-loop-tile's band (as mqss checks
/// it), affine-loop-fusion and affine-data-copy-generate then reorder or
/// copy past a dependence they do not see (found by an action-level scan:
/// an in-place stencil read through a cast came out wrong under `default`'s
/// tiling). affine-super-vectorize needs only the names: it does not
/// vectorize a loop holding other memory ops.
std::optional<PassHazard> affineAliasHazard(mlir::ModuleOp module, NestScope scope,
                                            bool nonAffine = true);

/// A buffer MLIR 19's affine-data-copy-generate would write back wrongly.
/// It copies for each top-level affine.for (and each run of other ops) in
/// a function; a buffer written there but not read gets no copy-in, and
/// the copy-out writes its whole bounding box back from the local buffer.
/// Where the stores do not write every element of that box (an outer loop
/// of step 3, a store at `2 * i`), the rest becomes uninitialized values.
/// Found by a random loop-program generator. Exact: the box is the pass's
/// own (MemRefRegion); stores that run fewer times than it has elements
/// cannot fill it, else their elements are counted (at most 2^20
/// iterations; past that, or where they cannot be counted, a hazard).
std::optional<PassHazard> affineCopyOutHazard(mlir::ModuleOp module);

/// A tensor.insert_slice with a stride other than 1 of a tensor.pad with
/// low padding into a linalg.fill (through other inserts): MLIR 19's
/// canonicalizer (FoldInsertPadIntoFill) moves the insert by the low
/// padding without multiplying it by the stride. Found by a random linalg
/// program generator.
std::optional<PassHazard> insertPadIntoFillHazard(mlir::ModuleOp module);

/// A contraction MLIR 19's linalg-block-pack-matmul would pack, and pad
/// with zeros, whose body does more than multiply the inputs and add the
/// product to the accumulator (`O += exp(A) * exp(B)`, a negated
/// accumulator): the padding is then not neutral. The pass packs every op
/// isaContractionOpInterface accepts, generic ones included. Found by a
/// random linalg program generator.
std::optional<PassHazard> blockPackPaddingHazard(mlir::ModuleOp module);

/// A linalg op on buffers whose output overlaps one of its inputs (or
/// another output) other than element for element: `linalg.transpose
/// ins(%A) outs(%A)`, `linalg.matmul ins(%A, %B) outs(%A)`, two subviews of
/// one buffer. Its loops read values the op wrote before; the linalg
/// stage's schedules (tile, then vectorize) read each tile whole first.
/// The same view under the same indexing map, with parallel loops only, is
/// fine. Found by a random linalg program generator.
std::optional<PassHazard> linalgOperandOverlapHazard(mlir::ModuleOp module);

/// The first affine.for with an empty lower or upper bound map, or null.
/// MLIR 19's affine-data-copy-generate leaves such loops where it cannot
/// bound a copy (accesses through floordiv/mod, bounds on affine.parallel
/// ivs); they copy nothing, and lowering them crashes.
mlir::Operation *affineLoopWithoutBounds(mlir::ModuleOp module);

/// An affine.store that \p entry, or a function it calls, executes with an
/// index past its memref's static shape, as written (a load there may be
/// harmless: HLS frontends pad by loading at -1 and selecting): one
/// whose enclosing ops are all affine.for loops with constant bounds (no
/// condition can guard it), indexed by their induction variables and
/// constants, so that the indices it reaches are known exactly: in closed
/// form where the index is linear (a SODA-OPT test looped 0 to 4 over a
/// memref<2x2xf32>), else counted where it takes at most 2^20 values
/// (Accera's `j floordiv 2 + 1` reached 8 in a memref<8xf32>).
/// Such a kernel is undefined: its output cannot be checked.
std::optional<PassHazard> staticOutOfBoundsAccess(mlir::func::FuncOp entry);

/// A result of \p entry that is a memref.alloca's buffer (or a view or cast
/// of one): the stack frame holding it is gone when \p entry returns, so
/// the caller reads a dangling buffer. The hazard's op is the alloca.
std::optional<PassHazard> returnedStackBuffer(mlir::func::FuncOp entry);

/// Why mqss refuses \p module, naming where; empty when it does not. Its
/// pipelines would silently change what such a module computes, or could
/// not run it at all:
/// - sparse tensors (a #sparse_tensor.encoding): mqss's stages are for dense
///   code, and one-shot bufferization would make the tensor a dense memref
///   (MLIR's sparsifier is the way to compile it);
/// - ml_program.global_store of a tensor: MLIR 19's bufferization stores a
///   fresh, uninitialized buffer into the global instead of the value;
/// - GPU code (an op of the gpu, nvgpu, nvvm, amdgpu or rocdl dialects),
///   which cannot run on the host;
/// - a tensor.extract_slice with a zero stride that an op writes into (a
///   destination): MLIR 19's one-shot bufferization writes through the
///   self-overlapping view in place;
/// - a tensor.pack whose result type leaves a static inner tile dynamic:
///   MLIR 19's lower_pack builds an invalid tensor.expand_shape from it;
/// - a tensor.gather or tensor.scatter, which MLIR 19 neither bufferizes
///   nor lowers.
std::string refusalReason(mlir::ModuleOp module);

/// executedOps() of functions by name, for callees only declared where
/// their callers are counted (see executedOpsByFunction).
using FunctionOps = llvm::StringMap<std::optional<double>>;

/// How many operations one call of \p function executes: each op counted
/// once per iteration of the loops around it, a linalg op once per point of
/// its iteration space, an op on vectors (or elementwise on tensors) once
/// per element, vector.contract once per point of its iteration space, a
/// call once plus what its callee executes. The
/// callee is looked up in \p function's module, and in \p declared when it
/// has no body there. None when the count is not known statically: a loop
/// without constant bounds, a dynamic shape, a recursive or indirect call,
/// a callee defined nowhere, unstructured control flow, an op with regions
/// this does not model, or a TOSA op (one op that stands for a whole
/// tensor computation). Counting stops once the count reaches \p enough:
/// the result is then only known to be at least that (and the ops not
/// looked at may not be static).
std::optional<double> executedOps(mlir::func::FuncOp function,
                                  double enough = std::numeric_limits<double>::infinity(),
                                  const FunctionOps *declared = nullptr);

/// executedOps() of each function with a body in \p module, its callees'
/// bodies in reach: for counting a function after it is cut out of
/// \p module with its callees left as declarations.
FunctionOps executedOpsByFunction(mlir::ModuleOp module,
                                  double enough = std::numeric_limits<double>::infinity());

} // namespace mqss

#endif // MQSS_IR_SUMMARY_H
