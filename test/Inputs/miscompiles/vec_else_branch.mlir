// For i = 1..3 the else branch copies A[j] to A[j + i]: a dependence of
// distance i along %j. MLIR 19's affine-super-vectorize gives the else
// branch the then branch's condition (i == 0), where the distance is 0,
// and vectorizes %j by 8 (`default` and the policy gave wrong output).
// Found by a random loop-program generator.
func.func @main(%A: memref<32xi32>) {
  affine.for %i = 0 to 4 {
    affine.if affine_set<(d0) : (d0 == 0)>(%i) {
    } else {
      affine.for %j = 0 to 16 {
        %a = affine.load %A[%j] : memref<32xi32>
        affine.store %a, %A[%j + %i] : memref<32xi32>
      }
    }
  }
  return
}
