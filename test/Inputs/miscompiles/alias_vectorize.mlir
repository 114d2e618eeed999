// a[i+1] = 2*a[i] with the write through a memref.cast: the vectorizer's
// parallelism check saw no dependence and vectorized the recurrence.
func.func @main(%a: memref<33xf32>) {
  %c2 = arith.constant 2.0 : f32
  %alias = memref.cast %a : memref<33xf32> to memref<?xf32>
  affine.for %i = 0 to 32 {
    %v = affine.load %a[%i] : memref<33xf32>
    %w = arith.mulf %v, %c2 : f32
    affine.store %w, %alias[%i + 1] : memref<?xf32>
  }
  return
}
