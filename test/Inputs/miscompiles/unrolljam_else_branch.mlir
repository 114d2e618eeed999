// An odd row reads, one column further on, what the even row before it
// writes in the else branch. Jammed by 2, iteration i + 1 reads A[i][j + 1]
// at column j, before iteration i doubles it. MLIR 19 gives the else
// branch's accesses the then branch's condition (i odd), and
// isLoopParallel saw no dependence.
func.func @main(%A: memref<16x17xi32>, %C: memref<16x16xi32>) {
  affine.for %i = 0 to 16 {
    %two = arith.constant 2 : i32
    affine.for %j = 0 to 16 {
      affine.if affine_set<(d0) : (d0 mod 2 - 1 == 0)>(%i) {
        %v = affine.load %A[%i - 1, %j + 1] : memref<16x17xi32>
        affine.store %v, %C[%i, %j] : memref<16x16xi32>
      } else {
        %v = affine.load %A[%i, %j] : memref<16x17xi32>
        %w = arith.muli %v, %two : i32
        affine.store %w, %A[%i, %j] : memref<16x17xi32>
      }
    }
  }
  return
}
