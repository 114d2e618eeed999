module {
  llvm.func @sq(%x: f64) -> f64 {
    %0 = llvm.fmul %x, %x : f64
    llvm.return %0 : f64
  }
  func.func @k(%x: memref<64xf64>) {
    affine.for %i = 0 to 64 {
      %v = affine.load %x[%i] : memref<64xf64>
      %w = llvm.call @sq(%v) : (f64) -> f64
      affine.store %w, %x[%i] : memref<64xf64>
    }
    return
  }
}
