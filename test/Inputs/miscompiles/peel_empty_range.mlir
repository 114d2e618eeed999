// Found by a random loop-program generator (fuzz9): with %n below 4 the loop runs
// zero times, but MLIR 19's cleanup (unrolling) or peeled loop starts below 4.
func.func @kernel(%A: memref<16xf32>, %B: memref<16xf32>, %n: index) {
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c4 to %n step %c3 {
    %v = memref.load %A[%i] : memref<16xf32>
    memref.store %v, %B[%i] : memref<16xf32>
  }
  return
}
