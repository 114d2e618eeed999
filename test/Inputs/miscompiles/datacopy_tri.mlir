// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// affine-data-copy-generate on a triangular nest emits copy loops with empty bound maps, and lowering crashes.
func.func @tri(%A: memref<16x16xf32>, %B: memref<16x16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
      %v = affine.load %B[%i, %j] : memref<16x16xf32>
      affine.store %v, %A[%i, %j] : memref<16x16xf32>
    }
  }
  return
}
