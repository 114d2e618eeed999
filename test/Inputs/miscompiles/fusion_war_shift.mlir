// Found by a random loop-program generator (fuzz9): MLIR 19's affine-loop-fusion
// ignores the write after read of %X across the two nests.
func.func @kernel(%A: memref<16xf32>, %X: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %v = affine.load %X[%i] : memref<16xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %A[%i] : memref<16xf32>
  }
  affine.for %i = 1 to 16 {
    %v = affine.load %A[%i - 1] : memref<16xf32>
    affine.store %v, %X[%i] : memref<16xf32>
  }
  return
}
