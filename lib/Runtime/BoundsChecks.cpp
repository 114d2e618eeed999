//===- BoundsChecks.cpp - Run-time checks of a kernel's memory accesses ----===//
//
// memref.load and memref.store get upstream's runtime verification. MLIR 19
// has none for the other accesses, nor for views in the form the lowering
// leaves them (after expand-strided-metadata a view is a reinterpret_cast of
// its base buffer, which upstream's check takes for a single element; a
// view's own accesses are checked against its sizes anyway): those are
// checked here, with upstream's message format.
//
//===----------------------------------------------------------------------===//

#include "mqss/Runtime/BoundsChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

using namespace mlir;

namespace mqss {

namespace {
/// Builds the conditions of one access's check before it.
class CheckBuilder {
public:
  explicit CheckBuilder(Operation *access) : builder(access), loc(access->getLoc()) {}

  /// `0 <= index && index + extent <= size of memref's dimension d`.
  void within(Value memref, unsigned d, Value index, int64_t extent = 1) {
    Value zero = builder.create<arith::ConstantIndexOp>(loc, 0);
    Value size = builder.create<memref::DimOp>(loc, memref, d);
    Value last = index;
    if (extent > 1)
      last = builder.create<arith::AddIOp>(
          loc, index, builder.create<arith::ConstantIndexOp>(loc, extent - 1));
    add(builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, index, zero));
    add(builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, last, size));
  }

  /// Every index of \p indices within \p memref, the last \p extents.size()
  /// of them covering that many elements from the index on.
  void withinAll(Value memref, ValueRange indices, ArrayRef<int64_t> extents = {}) {
    size_t firstSpanned = indices.size() - std::min(extents.size(), indices.size());
    for (auto [d, index] : llvm::enumerate(indices))
      within(memref, d, index, d >= firstSpanned ? extents[d - firstSpanned] : 1);
  }

  /// The two memrefs' dimension \p d have the same size.
  void sameSize(Value a, Value b, unsigned d) {
    add(builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                      builder.create<memref::DimOp>(loc, a, d),
                                      builder.create<memref::DimOp>(loc, b, d)));
  }

  void assertAll(Operation *access, const std::string &what) {
    if (!condition)
      return;
    builder.create<cf::AssertOp>(
        loc, condition, RuntimeVerifiableOpInterface::generateErrorMessage(access, what));
  }

private:
  void add(Value holds) {
    condition = condition ? builder.create<arith::AndIOp>(loc, condition, holds) : holds;
  }

  OpBuilder builder;
  Location loc;
  Value condition;
};

/// The elements a vector.load/store covers along the memref's trailing
/// dimensions; none where the memref's elements are vectors themselves.
SmallVector<int64_t> vectorExtents(MemRefType memref, VectorType vector) {
  if (isa<VectorType>(memref.getElementType()) || vector.getRank() > memref.getRank())
    return {};
  return llvm::to_vector(vector.getShape());
}

/// An unmasked vector.transfer_read/write on a memref: a vector dimension
/// declared in bounds must lie within the memref dimension it maps to, and
/// the index of a memref dimension no vector dimension maps to (one element
/// along it) within that dimension. Vector dimensions not declared in bounds
/// may legitimately run past the end (padded or skipped), as may masked-off
/// lanes.
void transferWithin(CheckBuilder &check, VectorTransferOpInterface transfer) {
  auto memref = dyn_cast<MemRefType>(transfer.getShapedType());
  if (!memref || isa<VectorType>(memref.getElementType()) || transfer.getMask())
    return;
  AffineMap map = transfer.getPermutationMap();
  SmallVector<int64_t> extent(memref.getRank(), 1);
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(i)))
      extent[dim.getPosition()] =
          transfer.isDimInBounds(i) ? transfer.getVectorType().getDimSize(i) : 0;
  for (auto [d, index] : llvm::enumerate(transfer.getIndices()))
    if (extent[d] > 0)
      check.within(transfer.getSource(), d, index, extent[d]);
}
} // namespace

void insertBoundsChecks(ModuleOp module) {
  SmallVector<Operation *> accesses;
  module.walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
            memref::CopyOp, vector::LoadOp, vector::StoreOp, vector::TransferReadOp,
            vector::TransferWriteOp>(op))
      accesses.push_back(op);
  });
  for (Operation *access : accesses) {
    if (isa<memref::LoadOp, memref::StoreOp>(access)) {
      OpBuilder builder(access);
      cast<RuntimeVerifiableOpInterface>(access).generateRuntimeVerification(builder,
                                                                            access->getLoc());
      continue;
    }
    CheckBuilder check(access);
    if (auto rmw = dyn_cast<memref::AtomicRMWOp>(access))
      check.withinAll(rmw.getMemref(), rmw.getIndices());
    else if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(access))
      check.withinAll(rmw.getMemref(), rmw.getIndices());
    else if (auto load = dyn_cast<vector::LoadOp>(access))
      check.withinAll(load.getBase(), load.getIndices(),
                      vectorExtents(load.getMemRefType(), load.getVectorType()));
    else if (auto store = dyn_cast<vector::StoreOp>(access))
      check.withinAll(store.getBase(), store.getIndices(),
                      vectorExtents(store.getMemRefType(), store.getVectorType()));
    else if (auto transfer = dyn_cast<VectorTransferOpInterface>(access))
      transferWithin(check, transfer);
    else if (auto copy = dyn_cast<memref::CopyOp>(access)) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!source || !target || source.getRank() != target.getRank())
        continue;
      for (unsigned d = 0; d < source.getRank(); ++d)
        if (source.isDynamicDim(d) || target.isDynamicDim(d))
          check.sameSize(copy.getSource(), copy.getTarget(), d);
    }
    check.assertAll(access, isa<memref::CopyOp>(access)
                                ? "out-of-bounds access (source and target sizes differ)"
                                : "out-of-bounds access");
  }
}

} // namespace mqss
