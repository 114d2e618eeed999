// A nest updating a local buffer in place, read over half its range by a sibling: MLIR 19's affine-loop-fusion
// keeps the nest (the consumer needs only part of it) and runs the update again in the fused slice.
func.func @f(%in : memref<32xf32>, %consumer: memref<16xf32>) {
  %cst = arith.constant 2.000000e+00 : f32
  %producer = memref.alloc() : memref<32xf32>
  affine.for %i = 0 to 32 {
    %0 = affine.load %in[%i] : memref<32xf32>
    affine.store %0, %producer[%i] : memref<32xf32>
  }
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
  memref.dealloc %producer : memref<32xf32>
  return
}
