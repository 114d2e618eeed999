// B is written and never read here, every third row: affine-data-copy-generate
// gives it no copy-in and copies its whole 16x4 box back, the rows in between
// from an uninitialized local buffer.
func.func @kernel(%A: memref<16xf32>, %B: memref<16x4xf32>) {
  affine.for %i = 0 to 16 step 3 {
    affine.for %j = 0 to 4 {
      %v = affine.load %A[%i] : memref<16xf32>
      affine.store %v, %B[%i, %j] : memref<16x4xf32>
    }
  }
  return
}
