// A transposed update split by `j >= i`: the else branch reads A[i][j],
// which the then branch of iteration (j, i) wrote, a dependence running
// backwards along %j. MLIR 19 gives the else branch's accesses the then
// branch's condition, and the dependence looked like none: `default` tiled
// the nest into wrong output.
func.func @main(%A: memref<64x64xi32>) {
  affine.for %i = 0 to 64 step 3 {
    affine.for %j = 0 to 64 {
      affine.if affine_set<(d0, d1) : (d1 - d0 >= 0)>(%i, %j) {
        %a = affine.load %A[%j, %i] : memref<64x64xi32>
        %s = arith.addi %a, %a : i32
        affine.store %s, %A[%j, %i] : memref<64x64xi32>
      } else {
        %a = affine.load %A[%j, %i] : memref<64x64xi32>
        %b = affine.load %A[%i, %j] : memref<64x64xi32>
        %s = arith.subi %a, %b : i32
        affine.store %s, %A[%j, %i] : memref<64x64xi32>
      }
    }
  }
  return
}
