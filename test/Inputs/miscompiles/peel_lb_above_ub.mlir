// An scf.for whose lower bound (%i + 3) passes its constant upper bound 20:
// scf-for-loop-peeling splits at 20 - ((20 - lb) mod 3), below the lower
// bound, and its remainder loop runs an iteration the loop never would.
func.func @main(%A: memref<24xi32>, %B: memref<24xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c20 = arith.constant 20 : index
  %c24 = arith.constant 24 : index
  scf.for %i = %c0 to %c24 step %c1 {
    %lb = arith.addi %i, %c3 : index
    scf.for %j = %lb to %c20 step %c3 {
      %a = memref.load %A[%j] : memref<24xi32>
      %b = memref.load %B[%i] : memref<24xi32>
      %s = arith.addi %a, %b : i32
      memref.store %s, %B[%i] : memref<24xi32>
    }
  }
  return
}
