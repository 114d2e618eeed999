// Found by a sweep of others' IR (sweep 7, MLIR 19 upstream bug): affine-loop-invariant-code-motion
// hoists the constant, then the store using it, out of a loop that may run zero times.
// With %n = 0, @main returns 42; hoisted, it returned 1.
func.func @main(%x: i32, %n: index) -> i32 {
  %alloc = memref.alloc() : memref<1xi32>
  %c42 = arith.constant 42 : i32
  affine.store %c42, %alloc[0] : memref<1xi32>
  affine.for %i = 0 to %n {
    %c1 = arith.constant 1 : i32
    affine.store %c1, %alloc[0] : memref<1xi32>
  }
  %r = affine.load %alloc[0] : memref<1xi32>
  return %r : i32
}
