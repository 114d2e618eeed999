// The inner loop's induction variable is a value (index_cast): MLIR 19's
// super-vectorizer fails on %j and takes %i, along which the store's column
// `32 - %i` moves by -1, and writes forward lanes. `default` was wrong.
func.func @main(%A: memref<33x33xi32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 1 to 33 {
      %v = arith.index_cast %j : index to i32
      affine.store %v, %A[%j, -%i + 32] : memref<33x33xi32>
    }
  }
  return
}
