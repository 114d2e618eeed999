// pnnl/soda-opt test/Dialect/Affine/unroll.mlir (found by sweep 7): loops 0 to 4 over memref<2x2xf32>.
// Its stores land past the buffers (glibc then reported heap corruption, blamed on a candidate).
func.func @unroll_inner(%A: memref<2x2xf32>, %B: memref<2x2xf32>, %C: memref<2x2xf32>) -> memref<2x2xf32> {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      affine.for %k = 0 to 4 {
        %6 = affine.load %A[%i, %k] : memref<2x2xf32>
        %7 = affine.load %B[%k, %j] : memref<2x2xf32>
        %8 = affine.load %C[%i, %j] : memref<2x2xf32>
        %9 = arith.mulf %6, %7 : f32
        %10 = arith.addf %8, %9 : f32
        affine.store %10, %C[%i, %j] : memref<2x2xf32>
      }
    }
  }
  return %C : memref<2x2xf32>
}
