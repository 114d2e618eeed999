// A triangular nest whose bounds never cross (%j from %i + 1 to 16, %i
// below 16): unrolling stays legal.
func.func @main(%A: memref<16xf32>, %B: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%i) to 16 {
      %v = affine.load %A[%j] : memref<16xf32>
      %w = affine.load %B[%i] : memref<16xf32>
      %s = arith.addf %v, %w : f32
      affine.store %s, %B[%i] : memref<16xf32>
    }
  }
  return
}
