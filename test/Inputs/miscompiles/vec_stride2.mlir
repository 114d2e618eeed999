// Found by an action-level scan (MLIR 19, upstream bug): affine-super-vectorize reads this access as a contiguous
// vector, though it moves by other than one element per iteration.
func.func @main(%a: memref<64xf32>, %b: memref<32xf32>) {
  affine.for %i = 0 to 32 {
    %v = affine.load %a[2 * %i] : memref<64xf32>
    affine.store %v, %b[%i] : memref<32xf32>
  }
  return
}
