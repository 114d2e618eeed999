// Found by a random loop-program generator (fuzz9): MLIR 19's affine-super-vectorize
// vectorizes the innermost loop it can, which may be an outer one.
// The inner loop rewrites B[i] (not parallel), so the super-vectorizer vectorizes the OUTER
// loop (trip 8, a multiple of the width) and reads A[2*i] as 8 contiguous elements.
// The mask's stride check (numStridedAffineMemoryOps) looks only at each access's
// nearest loop (j), along which A[2*i] is invariant. Reduced from generator seed 20014,
// where default, policy and expert:elementwise were all wrong.
func.func @kernel(%A: memref<16xf32>, %B: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %A[2 * %i] : memref<16xf32>
      %b = affine.load %B[%i] : memref<8xf32>
      %s = arith.addf %v, %b : f32
      affine.store %s, %B[%i] : memref<8xf32>
    }
  }
  return
}
