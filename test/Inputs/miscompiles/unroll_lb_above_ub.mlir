// An inner loop whose lower bound passes its upper one for the last outer
// iterations (i = 15: 17 to 16): it runs zero times there, but MLIR 19's
// unroller starts its cleanup loop at 17 + ((16 - 17) floordiv 2) * 2 = 15.
func.func @main(%A: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = affine_map<(d0) -> (d0 + 2)>(%i) to 16 {
      %v = affine.load %A[%j] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %A[%j] : memref<16xf32>
    }
  }
  return
}
