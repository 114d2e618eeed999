module {
  func.func @smooth(%A: memref<128xf64>) {
    %tmp = memref.alloc() : memref<128xf64>
    memref.copy %A, %tmp : memref<128xf64> to memref<128xf64>
    %half = arith.constant 0.5 : f64
    affine.for %i = 1 to 127 {
      %a = affine.load %tmp[%i - 1] : memref<128xf64>
      %b = affine.load %tmp[%i + 1] : memref<128xf64>
      %s = arith.addf %a, %b : f64
      %m = arith.mulf %s, %half : f64
      affine.store %m, %A[%i] : memref<128xf64>
    }
    memref.dealloc %tmp : memref<128xf64>
    return
  }
}
