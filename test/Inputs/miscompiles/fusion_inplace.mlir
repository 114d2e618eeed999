// From llvm/llvm-project mlir/test/Dialect/Affine/loop-fusion-4.mlir (@same_memref_load_store), found by a sweep of
// upstream's tests (MLIR 19, upstream bug): the producer updates %producer in place and the consumer reads it;
// affine-loop-fusion gives the fused slice a private buffer that never receives %producer's old values.
func.func @same_memref_load_store(%producer : memref<32xf32>, %consumer: memref<16xf32>) {
  %cst = arith.constant 2.000000e+00 : f32
  affine.for %arg3 = 0 to 32 {
    %0 = affine.load %producer[%arg3] : memref<32xf32>
    %2 = arith.mulf %0, %cst : f32
    affine.store %2, %producer[%arg3] : memref<32xf32>
  }
  affine.for %arg3 = 0 to 16 {
    %0 = affine.load %producer[%arg3] : memref<32xf32>
    %2 = arith.addf %0, %cst : f32
    affine.store %2, %consumer[%arg3] : memref<16xf32>
  }
  return
}
