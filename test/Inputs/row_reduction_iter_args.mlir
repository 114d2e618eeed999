// Row sums with a scalar accumulator in iter_args, as C frontends raise
// `for (j) s += A[i][j];` to affine. After affine-loop-tile, MLIR 19's
// affine-super-vectorize crashes (segfaults) on this nest.
func.func @row_sums(%a: memref<64x64xf32>, %sums: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    %sum = affine.for %j = 0 to 64 iter_args(%acc = %zero) -> (f32) {
      %x = affine.load %a[%i, %j] : memref<64x64xf32>
      %next = arith.addf %acc, %x : f32
      affine.yield %next : f32
    }
    affine.store %sum, %sums[%i] : memref<64xf32>
  }
  return
}
