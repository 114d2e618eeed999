//===- BoundsChecks.h - Run-time checks of a kernel's memory accesses ------===//
//
// The naive reference of a measurement is lowered with a check before every
// access to a buffer: --shape sizes that do not fit a kernel, a size
// argument past its buffers, or a kernel indexing past them then abort with
// the op and its location instead of reading or writing whatever memory
// lies there.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_BOUNDSCHECKS_H
#define MQSS_RUNTIME_BOUNDSCHECKS_H

#include "mlir/IR/BuiltinOps.h"

namespace mqss {

/// Inserts, before every memref.load, memref.store, memref.atomic_rmw,
/// memref.generic_atomic_rmw, vector.load, vector.store and memref.copy of
/// \p module, a cf.assert that the access lies within its buffer (for a
/// copy: that source and target have the same sizes), and before every
/// memref.reinterpret_cast (every view, after expand-strided-metadata) one
/// that the view reaches no element outside the memref it views. A failed one prints
/// upstream's runtime-verification message: "ERROR: Runtime op
/// verification failed", the op, "^ out-of-bounds access" and its location.
/// Meant for IR whose affine and linalg ops have been lowered to these.
void insertBoundsChecks(mlir::ModuleOp module);

} // namespace mqss

#endif // MQSS_RUNTIME_BOUNDSCHECKS_H
