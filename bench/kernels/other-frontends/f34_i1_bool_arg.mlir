module {
  func.func @select_k(%flag: i1, %x: memref<100xi16>, %y: memref<100xi16>) {
    %c3 = arith.constant 3 : i16
    affine.for %i = 0 to 100 {
      %v = affine.load %x[%i] : memref<100xi16>
      %a = arith.shli %v, %c3 : i16
      %b = arith.shrui %v, %c3 : i16
      %s = arith.select %flag, %a, %b : i16
      affine.store %s, %y[%i] : memref<100xi16>
    }
    return
  }
}
