// A triangular nest: the inner loop's bound follows the outer loop.
func.func @tri(%A: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %v = affine.load %A[%i, %j] : memref<64x64xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
