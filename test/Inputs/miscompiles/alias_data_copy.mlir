// A store through a memref.cast of %A: affine-data-copy-generate copied %A
// into a local buffer and read the stale copy.
func.func @main(%A: memref<32x32xf32>, %B: memref<32x32xf32>) {
  %alias = memref.cast %A : memref<32x32xf32> to memref<?x?xf32>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %v = affine.load %A[%i, %j] : memref<32x32xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %alias[%i, %j] : memref<?x?xf32>
      %r = affine.load %A[%i, %j] : memref<32x32xf32>
      affine.store %r, %B[%i, %j] : memref<32x32xf32>
    }
  }
  return
}
