// gemm on 64x64 arrays flattened to one dimension, as Polygeist emits C
// arrays indexed by hand: every dependence points forwards, so it tiles.
func.func @gemm(%A: memref<4096xf32>, %B: memref<4096xf32>, %C: memref<4096xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i * 64 + %k] : memref<4096xf32>
        %b = affine.load %B[%k * 64 + %j] : memref<4096xf32>
        %c = affine.load %C[%i * 64 + %j] : memref<4096xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i * 64 + %j] : memref<4096xf32>
      }
    }
  }
  return
}
