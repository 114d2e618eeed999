// Each A[i] is set to 7 and then, in the else branch (always taken here),
// overwritten with B[i]; the reload must see B[i]. MLIR 19's affine-scalrep
// gives the else branch the then branch's condition (i >= 16, never true),
// sees no intervening store, and forwards the 7. Found by a random
// loop-program generator.
func.func @main(%A: memref<16xi32>, %B: memref<16xi32>) {
  %c = arith.constant 7 : i32
  affine.for %i = 0 to 16 {
    affine.store %c, %A[%i] : memref<16xi32>
    affine.if affine_set<(d0) : (d0 - 16 >= 0)>(%i) {
    } else {
      %x = affine.load %B[%i] : memref<16xi32>
      affine.store %x, %A[%i] : memref<16xi32>
    }
    %v = affine.load %A[%i] : memref<16xi32>
    affine.store %v, %B[%i] : memref<16xi32>
  }
  return
}
