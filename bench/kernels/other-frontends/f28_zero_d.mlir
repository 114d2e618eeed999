module {
  func.func @accum(%x: memref<256xf64>, %out: memref<f64>) {
    %z = arith.constant 0.0 : f64
    memref.store %z, %out[] : memref<f64>
    affine.for %i = 0 to 256 {
      %v = affine.load %x[%i] : memref<256xf64>
      %o = affine.load %out[] : memref<f64>
      %s = arith.addf %o, %v : f64
      affine.store %s, %out[] : memref<f64>
    }
    return
  }
}
