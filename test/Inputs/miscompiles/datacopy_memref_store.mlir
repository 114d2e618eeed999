// affine-data-copy-generate copies %A into a local buffer and back; the
// memref.store to %A inside the nest was lost.
func.func @main(%A: memref<32x32xf32>, %B: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %v = affine.load %A[%i, %j] : memref<32x32xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %A[%i, %j] : memref<32x32xf32>
      memref.store %v, %A[%c0, %c0] : memref<32x32xf32>
      %r = memref.load %A[%c0, %c0] : memref<32x32xf32>
      affine.store %r, %B[%i, %j] : memref<32x32xf32>
    }
  }
  return
}
