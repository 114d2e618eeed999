// Found by a random loop-program generator (fuzz9): with %n below 4 the loop runs
// zero times, but MLIR 19's cleanup (unrolling) or peeled loop starts below 4.
func.func @kernel(%A: memref<16xf32>, %B: memref<16xf32>, %n: index) {
  affine.for %i = 4 to %n {
    %v = affine.load %A[%i] : memref<16xf32>
    affine.store %v, %B[%i] : memref<16xf32>
  }
  return
}
