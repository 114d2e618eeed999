// Found by a random loop-program generator (fuzz9): MLIR 19's affine-super-vectorize
// vectorizes the innermost loop it can, which may be an outer one.
func.func @kernel(%A: memref<9x12xf32>) {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 8 {
      %a = affine.load %A[%j, %i] : memref<9x12xf32>
      %s = arith.addf %a, %a : f32
      affine.store %s, %A[%j + 1, %i] : memref<9x12xf32>
    }
  }
  return
}
