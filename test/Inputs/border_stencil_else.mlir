// A stencil with a border row: both branches of the affine.if store to
// B[%i, %j], the else branch reads A only. Tiling stays legal: the pairs
// through the else branch are the same access, element for element.
func.func @main(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.if affine_set<(d0) : (d0 == 0)>(%i) {
        affine.store %zero, %B[%i, %j] : memref<64x64xf32>
      } else {
        %a = affine.load %A[%i - 1, %j] : memref<64x64xf32>
        affine.store %a, %B[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}
