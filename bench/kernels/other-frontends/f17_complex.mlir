module {
  func.func @cmul(%re: memref<64xf64>, %im: memref<64xf64>, %out: memref<64xf64>) {
    affine.for %i = 0 to 64 {
      %r = affine.load %re[%i] : memref<64xf64>
      %m = affine.load %im[%i] : memref<64xf64>
      %z = complex.create %r, %m : complex<f64>
      %z2 = complex.mul %z, %z : complex<f64>
      %a = complex.abs %z2 : complex<f64>
      %e = complex.exp %z : complex<f64>
      %er = complex.re %e : complex<f64>
      %s = arith.addf %a, %er : f64
      affine.store %s, %out[%i] : memref<64xf64>
    }
    return
  }
}
