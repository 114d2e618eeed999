// A store of a value the window loop does not change: the window
// `max(%i - 1, 0) to min(%i + 2, 16)` runs two or three times for every %i,
// so hoisting the store out of it keeps the result.
func.func @main(%A: memref<16xi32>, %B: memref<16xi32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = max affine_map<(d0) -> (d0 - 1, 0)>(%i) to min affine_map<(d0) -> (d0 + 2, 16)>(%i) {
      %a = affine.load %A[%i] : memref<16xi32>
      affine.store %a, %B[%i] : memref<16xi32>
    }
  }
  return
}
