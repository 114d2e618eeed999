//===- BoundsChecks.cpp - Run-time checks of a kernel's memory accesses ----===//
//
// memref.load and memref.store get upstream's runtime verification. MLIR 19
// has none for the other accesses, nor for views in the form the lowering
// leaves them (after expand-strided-metadata a view is a reinterpret_cast of
// its base buffer, which upstream's check takes for a single element, and a
// view's own accesses are checked against the view's sizes only): those are
// checked here, with upstream's message format, a view against the memref
// it was made from.
//
//===----------------------------------------------------------------------===//

#include "mqss/Runtime/BoundsChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
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

  /// The elements \p view reaches (its offset, sizes and strides, as a
  /// reinterpret_cast gives them) lie within those of the memref described
  /// by \p offset, \p sizes and \p strides (an extract_strided_metadata's
  /// results), or \p view has none.
  void viewWithin(memref::ReinterpretCastOp view, Value offset, ValueRange sizes,
                  ValueRange strides) {
    auto [viewFirst, viewLast, viewEmpty] =
        reach(values(view.getMixedOffsets()).front(), values(view.getMixedSizes()),
              values(view.getMixedStrides()));
    auto [first, last, empty] = reach(offset, sizes, strides);
    Value within = builder.create<arith::AndIOp>(
        loc, builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, viewFirst, first),
        builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, viewLast, last));
    Value nonEmpty = builder.create<arith::XOrIOp>(
        loc, empty, builder.create<arith::ConstantIntOp>(loc, 1, 1));
    add(builder.create<arith::OrIOp>(loc, viewEmpty,
                                     builder.create<arith::AndIOp>(loc, nonEmpty, within)));
  }

  /// Each active lane of a 1-D access at \p indices, lane j at the last
  /// index + j, within \p memref: for masked loads and stores and masked
  /// transfers (masked-off lanes touch no memory, so a tail may lie past
  /// the end). \p mask is a vector<Nxi1>.
  void activeLanesWithin(Value memref, ValueRange indices, Value mask) {
    auto maskType = cast<VectorType>(mask.getType());
    int64_t lanes = maskType.getNumElements();
    unsigned last = indices.size() - 1;
    Value size = builder.create<memref::DimOp>(loc, memref, last);
    Value position = builder.create<arith::AddIOp>(loc, splat(indices[last], lanes),
                                                   laneNumbers(lanes));
    Value within = builder.create<arith::AndIOp>(
        loc, compare(arith::CmpIPredicate::sge, position, splat(index(0), lanes)),
        compare(arith::CmpIPredicate::slt, position, splat(size, lanes)));
    // The other dimensions hold one index for every lane.
    for (unsigned d = 0; d < last; ++d) {
      Value leading = builder.create<arith::AndIOp>(
          loc, compare(arith::CmpIPredicate::sge, indices[d], index(0)),
          compare(arith::CmpIPredicate::slt, indices[d],
                  builder.create<memref::DimOp>(loc, memref, d)));
      within = builder.create<arith::AndIOp>(loc, within, splat(leading, lanes));
    }
    add(allActiveLanes(mask, within));
  }

  /// Each active lane j of a vector.gather or scatter within \p memref: it
  /// reaches the element \p offsets[j] past the one \p indices name, in
  /// the memref's linear order (MLIR's lowering adds the offsets to that
  /// element's address), so it must lie among the elements the memref
  /// reaches.
  void gatheredWithin(Value memref, ValueRange indices, Value offsets, Value mask) {
    auto offsetType = cast<VectorType>(offsets.getType());
    if (!isa<MemRefType>(memref.getType()))
      return; // a gather from a tensor reads no memory
    int64_t lanes = offsetType.getNumElements();
    auto flat = [&](Value vector, Type element) {
      return builder.create<vector::ShapeCastOp>(loc, VectorType::get({lanes}, element), vector)
          .getResult();
    };
    auto metadata = builder.create<memref::ExtractStridedMetadataOp>(loc, memref);
    Value element = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
      element = builder.create<arith::AddIOp>(
          loc, element, builder.create<arith::MulIOp>(loc, index, stride));
    Value offset = flat(offsets, offsetType.getElementType());
    if (!offsetType.getElementType().isIndex())
      offset = builder.create<arith::IndexCastOp>(
          loc, VectorType::get({lanes}, builder.getIndexType()), offset);
    Value position = builder.create<arith::AddIOp>(loc, splat(element, lanes), offset);
    auto [first, lastReached, empty] =
        reach(metadata.getOffset(), metadata.getSizes(), metadata.getStrides());
    Value nonEmpty = builder.create<arith::XOrIOp>(loc, empty, bit(true));
    Value within = builder.create<arith::AndIOp>(
        loc,
        builder.create<arith::AndIOp>(
            loc, compare(arith::CmpIPredicate::sge, position, splat(first, lanes)),
            compare(arith::CmpIPredicate::sle, position, splat(lastReached, lanes))),
        splat(nonEmpty, lanes));
    add(allActiveLanes(flat(mask, builder.getI1Type()), within));
  }

  /// A vector.expandload or compressstore: its active lanes take the
  /// elements from the last index on, one each, so those are within.
  void packedLanesWithin(Value memref, ValueRange indices, Value mask) {
    auto maskType = cast<VectorType>(mask.getType());
    int64_t lanes = maskType.getNumElements();
    Value count = builder.create<vector::ReductionOp>(
        loc, vector::CombiningKind::ADD,
        builder.create<arith::ExtUIOp>(
            loc, VectorType::get({lanes}, builder.getI64Type()), mask));
    count = builder.create<arith::IndexCastOp>(loc, builder.getIndexType(), count);
    // The lanes a mask of `count` leading ones would give: what a
    // masked access of those elements checks.
    Value leadingOnes = builder.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::slt, laneNumbers(lanes), splat(count, lanes));
    activeLanesWithin(memref, indices, leadingOnes);
  }

  void assertAll(Operation *access, const std::string &what) {
    if (!condition)
      return;
    builder.create<cf::AssertOp>(
        loc, condition, RuntimeVerifiableOpInterface::generateErrorMessage(access, what));
  }

private:
  /// The first and last element a memref reaches (from \p offset, along
  /// each dimension in the direction of its stride), and whether it has
  /// none (a size of 0).
  std::tuple<Value, Value, Value> reach(Value offset, ValueRange sizes, ValueRange strides) {
    Value first = offset, last = offset;
    Value empty = builder.create<arith::ConstantIntOp>(loc, 0, 1);
    Value zero = builder.create<arith::ConstantIndexOp>(loc, 0);
    Value one = builder.create<arith::ConstantIndexOp>(loc, 1);
    for (auto [size, stride] : llvm::zip(sizes, strides)) {
      empty = builder.create<arith::OrIOp>(
          loc, empty, builder.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, size, zero));
      Value span = builder.create<arith::MulIOp>(
          loc, builder.create<arith::SubIOp>(loc, size, one), stride);
      first = builder.create<arith::AddIOp>(loc, first,
                                            builder.create<arith::MinSIOp>(loc, span, zero));
      last = builder.create<arith::AddIOp>(loc, last,
                                           builder.create<arith::MaxSIOp>(loc, span, zero));
    }
    return {first, last, empty};
  }

  Value index(int64_t value) { return builder.create<arith::ConstantIndexOp>(loc, value); }
  Value bit(bool value) { return builder.create<arith::ConstantIntOp>(loc, value, 1); }
  Value splat(Value scalar, int64_t lanes) {
    return builder.create<vector::SplatOp>(loc, VectorType::get({lanes}, scalar.getType()),
                                           scalar);
  }
  /// The vector<Nxindex> [0, 1, ..., N - 1].
  Value laneNumbers(int64_t lanes) {
    auto type = VectorType::get({lanes}, builder.getIndexType());
    SmallVector<APInt> numbers;
    for (int64_t lane = 0; lane < lanes; ++lane)
      numbers.push_back(APInt(64, lane));
    return builder.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, numbers));
  }
  Value compare(arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return builder.create<arith::CmpIOp>(loc, predicate, lhs, rhs);
  }
  /// Whether \p within holds at every lane \p mask sets.
  Value allActiveLanes(Value mask, Value within) {
    auto lanes = cast<VectorType>(mask.getType());
    Value masked = builder.create<arith::XOrIOp>(
        loc, mask,
        builder.create<arith::ConstantOp>(loc, DenseElementsAttr::get(lanes, true)));
    return builder.create<vector::ReductionOp>(
        loc, vector::CombiningKind::AND, builder.create<arith::OrIOp>(loc, masked, within));
  }

  SmallVector<Value> values(ArrayRef<OpFoldResult> mixed) {
    return getValueOrCreateConstantIndexOp(builder, loc, mixed);
  }

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

/// A vector.transfer_read/write on a memref. Unmasked, a vector dimension
/// declared in bounds must lie within the memref dimension it maps to, and
/// the index of a memref dimension no vector dimension maps to (one element
/// along it) within that dimension. Vector dimensions not declared in bounds
/// may legitimately run past the end (padded or skipped), as may masked-off
/// lanes: of a masked 1-D transfer along the last dimension, declared in
/// bounds, the lanes its mask sets are checked (others are not).
void transferWithin(CheckBuilder &check, VectorTransferOpInterface transfer) {
  auto memref = dyn_cast<MemRefType>(transfer.getShapedType());
  if (!memref || isa<VectorType>(memref.getElementType()))
    return;
  if (Value mask = transfer.getMask()) {
    // A 1-D masked transfer along the memref's last dimension (what
    // vector-to-scf leaves) declared in bounds: its active lanes are.
    if (transfer.getVectorType().getRank() == 1 && !transfer.getVectorType().isScalable() &&
        transfer.getPermutationMap().isMinorIdentity() && transfer.isDimInBounds(0))
      check.activeLanesWithin(transfer.getSource(), transfer.getIndices(), mask);
    return;
  }
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

/// A view within the buffer it views. After expand-strided-metadata every
/// view (subview, reinterpret_cast, expand_shape, ...) is a reinterpret_cast
/// of the base buffer an extract_strided_metadata gave, whose sizes and
/// strides describe the memref the view was made from; the view's own
/// accesses are checked against the view's sizes only.
void viewWithin(memref::ReinterpretCastOp view) {
  auto metadata = view.getSource().getDefiningOp<memref::ExtractStridedMetadataOp>();
  if (!metadata) {
    auto source = dyn_cast<MemRefType>(view.getSource().getType());
    if (!source)
      return; // unranked: nothing says how far it reaches
    OpBuilder builder(view);
    metadata = builder.create<memref::ExtractStridedMetadataOp>(view.getLoc(), view.getSource());
  }
  CheckBuilder check(view);
  check.viewWithin(view, metadata.getOffset(), metadata.getSizes(), metadata.getStrides());
  check.assertAll(view, "out-of-bounds access (a view reaching past the memref it views)");
}

void insertBoundsChecks(ModuleOp module) {
  SmallVector<memref::ReinterpretCastOp> views;
  module.walk([&](memref::ReinterpretCastOp view) { views.push_back(view); });
  for (memref::ReinterpretCastOp view : views)
    viewWithin(view);
  SmallVector<Operation *> accesses;
  module.walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp, memref::GenericAtomicRMWOp,
            memref::CopyOp, vector::LoadOp, vector::StoreOp, vector::TransferReadOp,
            vector::TransferWriteOp, vector::MaskedLoadOp, vector::MaskedStoreOp,
            vector::GatherOp, vector::ScatterOp, vector::ExpandLoadOp,
            vector::CompressStoreOp>(op))
      accesses.push_back(op);
  });
  for (Operation *access : accesses) {
    // Lanes are counted at compile time: not those of a scalable vector.
    if (llvm::any_of(access->getOperandTypes(), [](Type type) {
          auto vector = dyn_cast<VectorType>(type);
          return vector && vector.isScalable();
        }))
      continue;
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
    else if (auto load = dyn_cast<vector::MaskedLoadOp>(access))
      check.activeLanesWithin(load.getBase(), load.getIndices(), load.getMask());
    else if (auto store = dyn_cast<vector::MaskedStoreOp>(access))
      check.activeLanesWithin(store.getBase(), store.getIndices(), store.getMask());
    else if (auto gather = dyn_cast<vector::GatherOp>(access))
      check.gatheredWithin(gather.getBase(), gather.getIndices(), gather.getIndexVec(),
                           gather.getMask());
    else if (auto scatter = dyn_cast<vector::ScatterOp>(access))
      check.gatheredWithin(scatter.getBase(), scatter.getIndices(), scatter.getIndexVec(),
                           scatter.getMask());
    else if (auto load = dyn_cast<vector::ExpandLoadOp>(access))
      check.packedLanesWithin(load.getBase(), load.getIndices(), load.getMask());
    else if (auto store = dyn_cast<vector::CompressStoreOp>(access))
      check.packedLanesWithin(store.getBase(), store.getIndices(), store.getMask());
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
