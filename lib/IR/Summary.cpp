//===- Summary.cpp - One walk over a module --------------------------------===//

#include "mqss/IR/Summary.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

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

static LinalgOpInfo describeLinalg(linalg::LinalgOp op) {
  LinalgOpInfo info;
  info.name = op->getName().getStringRef().str();
  info.numParallel = op.getNumParallelLoops();
  info.numReduction = op.getNumReductionLoops();
  auto ranges = op.getStaticLoopRanges();
  info.loopRanges.assign(ranges.begin(), ranges.end());
  info.onTensors = op.hasPureTensorSemantics();
  info.hasUnitDim = llvm::is_contained(info.loopRanges, 1);
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

static unsigned loopDepth(Operation *op, bool affineOnly) {
  unsigned depth = 0;
  for (Operation *parent = op; parent; parent = parent->getParentOp()) {
    if (affineOnly ? isa<affine::AffineForOp>(parent)
                   : isa<LoopLikeOpInterface>(parent) && !isa<func::FuncOp>(parent))
      ++depth;
  }
  return depth;
}

IRSummary summarize(ModuleOp module) {
  IRSummary s;
  // Counted by interned name (a pointer hash), turned into strings once.
  llvm::DenseMap<OperationName, unsigned> counts;
  llvm::SmallPtrSet<Operation *, 16> outerLoops;
  llvm::SmallVector<Operation *, 32> loops;
  module.walk([&](Operation *op) {
    if (op == module.getOperation())
      return;
    ++s.numOps;
    ++counts[op->getName()];
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        ++s.numBlocks;
        s.numBlockArgs += block.getNumArguments();
        if (!s.hasTensors && llvm::any_of(block.getArgumentTypes(), isTensor))
          s.hasTensors = true;
      }
    if (!s.hasTensors && (llvm::any_of(op->getResultTypes(), isTensor) ||
                          llvm::any_of(op->getOperandTypes(), isTensor)))
      s.hasTensors = true;
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      ++s.numFuncs;
      if (llvm::any_of(func.getFunctionType().getInputs(), isTensor) ||
          llvm::any_of(func.getFunctionType().getResults(), isTensor))
        s.hasTensors = true;
      unsigned topLevel = 0;
      if (!func.isExternal())
        for (Operation &child : func.getBody().front())
          topLevel += isa<affine::AffineForOp>(child);
      s.maxTopLevelAffineLoops = std::max(s.maxTopLevelAffineLoops, topLevel);
      return;
    }

    Dialect *dialect = op->getDialect();
    llvm::StringRef ns = dialect ? dialect->getNamespace() : "";
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      s.linalgOps.push_back(describeLinalg(linalgOp));
      if (isa<linalg::GenericOp>(op))
        ++s.numGenericLinalg;
      else
        ++s.numNamedLinalg;
    }
    if (isa<tensor::EmptyOp>(op))
      ++s.numTensorEmpty;
    if (ns == "transform")
      ++s.numTransformOps;
    if (ns == "vector")
      ++s.numVectorOps;
    if (auto forOp = dyn_cast<affine::AffineForOp>(op)) {
      if (forOp.getNumResults() > 0) {
        ++s.numAffineForWithResults;
        auto yield = cast<affine::AffineYieldOp>(forOp.getBody()->getTerminator());
        for (Value operand : yield.getOperands())
          if (llvm::is_contained(forOp.getRegionIterArgs(), operand)) {
            ++s.numAffineForForwardingIterArgs;
            break;
          }
      }
      ++s.numAffineFor;
      if (!forOp.hasConstantBounds())
        s.allAffineBoundsConstant = false;
      s.maxAffineDepth = std::max(s.maxAffineDepth, loopDepth(op, true));
    }
    if (isa<scf::ForOp>(op))
      ++s.numScfFor;
    if (isa<scf::ParallelOp, scf::ForallOp, affine::AffineParallelOp>(op))
      ++s.numParallelLoops;
    if (isa<LoopLikeOpInterface>(op)) {
      s.maxLoopDepth = std::max(s.maxLoopDepth, loopDepth(op, false));
      loops.push_back(op);
      for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
        if (isa<LoopLikeOpInterface>(parent) && !isa<func::FuncOp>(parent)) {
          outerLoops.insert(parent);
          break;
        }
    }
    bool isAffineMemory = isa<affine::AffineLoadOp, affine::AffineStoreOp,
                              affine::AffineVectorLoadOp, affine::AffineVectorStoreOp>(op);
    s.numAffineMemoryOps += isAffineMemory;
    if (isAffineMemory || ns == "memref" ||
        isa<vector::TransferReadOp, vector::TransferWriteOp, vector::LoadOp,
            vector::StoreOp, tensor::ExtractOp, tensor::InsertOp,
            tensor::ExtractSliceOp, tensor::InsertSliceOp>(op))
      ++s.numMemoryOps;
    if (ns == "arith" || ns == "math") {
      ++s.numArithOps;
      if (op->getNumResults() == 1 && !isa<arith::ConstantOp>(op)) {
        Type type = op->getResult(0).getType();
        if (type.isIntOrFloat() || isa<VectorType>(type))
          ++s.numVectorisableArith;
      }
    }
  });
  for (const auto &[name, count] : counts)
    s.opCounts[name.getStringRef()] = count;
  // Innermost loops (no loop nested inside) with a constant trip count.
  for (Operation *op : loops) {
    if (outerLoops.contains(op))
      continue;
    if (auto forOp = dyn_cast<affine::AffineForOp>(op)) {
      if (forOp.hasConstantBounds()) {
        int64_t span = forOp.getConstantUpperBound() - forOp.getConstantLowerBound();
        int64_t step = forOp.getStepAsInt();
        int64_t trip = std::max<int64_t>(0, (span + step - 1) / step);
        s.innermostTripCounts.push_back(trip);
        s.innermostAffineTripGcd = std::gcd(s.innermostAffineTripGcd, trip);
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

} // namespace mqss
