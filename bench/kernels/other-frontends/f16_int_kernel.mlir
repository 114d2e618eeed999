module {
  func.func @pack(%a: memref<512xi8>, %b: memref<512xi16>, %out: memref<512xi32>) {
    %c8 = arith.constant 8 : i32
    %mask = arith.constant 255 : i32
    affine.for %i = 0 to 512 {
      %x = affine.load %a[%i] : memref<512xi8>
      %y = affine.load %b[%i] : memref<512xi16>
      %xe = arith.extsi %x : i8 to i32
      %ye = arith.extsi %y : i16 to i32
      %xs = arith.shli %ye, %c8 : i32
      %xm = arith.andi %xe, %mask : i32
      %o = arith.ori %xs, %xm : i32
      %r = arith.xori %o, %xe : i32
      %sh = arith.shrsi %r, %c8 : i32
      %t = arith.addi %r, %sh : i32
      affine.store %t, %out[%i] : memref<512xi32>
    }
    return
  }
}
