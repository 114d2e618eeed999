module {
  func.func @add2d(%A: memref<100x200xf32>, %B: memref<100x200xf32>, %C: memref<100x200xf32>) {
    affine.parallel (%i, %j) = (0, 0) to (100, 200) {
      %a = affine.load %A[%i, %j] : memref<100x200xf32>
      %b = affine.load %B[%i, %j] : memref<100x200xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %C[%i, %j] : memref<100x200xf32>
    }
    return
  }
}
