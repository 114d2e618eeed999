#set = affine_set<(d0, d1) : (d0 - d1 >= 0)>
module {
  func.func @lower_tri(%A: memref<50x50xf64>, %B: memref<50x50xf64>) {
    %z = arith.constant 0.0 : f64
    affine.for %i = 0 to 50 {
      affine.for %j = 0 to 50 {
        affine.if #set(%i, %j) {
          %v = affine.load %A[%i, %j] : memref<50x50xf64>
          affine.store %v, %B[%i, %j] : memref<50x50xf64>
        } else {
          affine.store %z, %B[%i, %j] : memref<50x50xf64>
        }
      }
    }
    return
  }
}
