// The second nest writes %b with memref.store, which the vectorizer's
// parallelism check refuses to vectorize through; the first nest, whose
// accesses are all affine through one name, is still vectorized.
func.func @main(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c2 = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %c2 : f32
    affine.store %w, %b[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %p = affine.load %b[%i] : memref<64xf32>
    %q = arith.addf %p, %c2 : f32
    memref.store %q, %b[%i] : memref<64xf32>
  }
  return
}
