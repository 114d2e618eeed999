// A nest updating a buffer in place, read element for element by its sibling: affine-loop-fusion fuses it
// whole (the nest is removed), which is right.
func.func @f(%producer : memref<32xf32>, %consumer: memref<32xf32>) {
  %cst = arith.constant 2.000000e+00 : f32
  affine.for %arg3 = 0 to 32 {
    %0 = affine.load %producer[%arg3] : memref<32xf32>
    %2 = arith.mulf %0, %cst : f32
    affine.store %2, %producer[%arg3] : memref<32xf32>
  }
  affine.for %arg3 = 0 to 32 {
    %0 = affine.load %producer[%arg3] : memref<32xf32>
    %2 = arith.addf %0, %cst : f32
    affine.store %2, %consumer[%arg3] : memref<32xf32>
  }
  return
}
