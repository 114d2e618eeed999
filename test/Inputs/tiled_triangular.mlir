// A triangular nest after tiling: %j runs from %i + 1 to 64, %i over the
// tile's rows (%ii to %ii + 32): the bounds never cross, so unrolling %j
// stays legal (the loops around it have no constant bounds).
func.func @main(%A: memref<64xf32>, %B: memref<64xf32>) {
  affine.for %ii = 0 to 64 step 32 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to affine_map<(d0) -> (d0 + 32)>(%ii) {
      affine.for %j = affine_map<(d0) -> (d0 + 1)>(%i) to 64 {
        %v = affine.load %A[%j] : memref<64xf32>
        %w = affine.load %B[%i] : memref<64xf32>
        %s = arith.addf %v, %w : f32
        affine.store %s, %B[%i] : memref<64xf32>
      }
    }
  }
  return
}
