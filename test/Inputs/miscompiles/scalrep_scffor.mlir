// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// affine-scalrep forwards the store before the scf.for into its body, missing the body's own update (1 instead of 10).
func.func @count(%out: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %buf = memref.alloca() : memref<1xi32>
  affine.store %z, %buf[0] : memref<1xi32>
  scf.for %i = %c0 to %c10 step %c1 {
    %v = affine.load %buf[0] : memref<1xi32>
    %w = arith.addi %v, %one : i32
    affine.store %w, %buf[0] : memref<1xi32>
  }
  %r = affine.load %buf[0] : memref<1xi32>
  affine.store %r, %out[0] : memref<1xi32>
  return
}
