// Found by an action-level scan (MLIR 19, upstream bug): affine-loop-invariant-code-motion hoists what it must not here.
func.func @main(%n: index, %x: memref<?xi64>, %out: memref<?xi64>) {
  %c100 = arith.constant 100 : index
  affine.for %i = 0 to %n {
    %q = arith.divui %c100, %n : index
    %qi = arith.index_cast %q : index to i64
    %v = affine.load %x[%i] : memref<?xi64>
    %w = arith.muli %v, %qi : i64
    affine.store %w, %out[%i] : memref<?xi64>
  }
  return
}
