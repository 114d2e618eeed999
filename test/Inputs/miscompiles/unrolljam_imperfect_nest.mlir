// Imperfect nest: loop 1 reads B[i] and writes A[i+1]; loop 2 reads A[i+1] and writes
// B[i+1], which loop 1 of iteration i+1 reads. unroll-and-jam by 2 runs loop 1 of i+1
// before loop 2 of i. (The pass only acts when the function's first op is an affine.for.)
func.func @kernel(%A: memref<9x4xf32>, %B: memref<9x4xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %b = affine.load %B[%i, %j] : memref<9x4xf32>
      %s = arith.addf %b, %b : f32
      affine.store %s, %A[%i + 1, %j] : memref<9x4xf32>
    }
    affine.for %j = 0 to 4 {
      %a = affine.load %A[%i + 1, %j] : memref<9x4xf32>
      %h = arith.constant 0.5 : f32
      %s = arith.addf %a, %h : f32
      affine.store %s, %B[%i + 1, %j] : memref<9x4xf32>
    }
  }
  return
}
