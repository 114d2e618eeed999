// An in-place Seidel-like sweep whose read goes through a memref.cast of the
// buffer: the dependence check does not see it, affine-loop-tile (default's
// tile-32) reordered the sweep. Found by an action-level scan.
func.func @main(%A: memref<64x64xf32>) {
  %alias = memref.cast %A : memref<64x64xf32> to memref<?x?xf32>
  affine.for %i = 1 to 63 {
    affine.for %j = 1 to 63 {
      %u = affine.load %alias[%i - 1, %j + 1] : memref<?x?xf32>
      %c = affine.load %A[%i, %j] : memref<64x64xf32>
      %s = arith.addf %u, %c : f32
      affine.store %s, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
