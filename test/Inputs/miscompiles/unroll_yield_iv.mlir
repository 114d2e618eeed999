// The loop yields its induction variable: the last index it saw, 15.
// Unrolled by 2, MLIR 19's affine-loop-unroll leaves the yield on the
// first copy's index, and the result is 14. Found by a random loop-program
// generator.
func.func @main(%A: memref<16xi32>, %B: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %r = affine.for %i = 0 to 16 iter_args(%l = %c0) -> (index) {
    %a = affine.load %A[%i] : memref<16xi32>
    affine.store %a, %B[0] : memref<1xi32>
    affine.yield %i : index
  }
  %v = arith.index_cast %r : index to i32
  affine.store %v, %B[0] : memref<1xi32>
  return
}
