// A sliding window (%j from max(%i - 2, 0) to min(%i + 3, 16)): each bound
// varies with %i, but the upper stays at least 3 above the lower, so the
// bounds never cross and unrolling stays legal.
func.func @main(%A: memref<16xf32>, %B: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = max affine_map<(d0) -> (d0 - 2, 0)>(%i) to min affine_map<(d0) -> (d0 + 3, 16)>(%i) {
      %v = affine.load %A[%j] : memref<16xf32>
      %w = affine.load %B[%i] : memref<16xf32>
      %s = arith.addf %v, %w : f32
      affine.store %s, %B[%i] : memref<16xf32>
    }
  }
  return
}
