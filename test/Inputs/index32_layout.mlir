// A data layout with a 32-bit index, as frontends for 32-bit targets emit it.
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<index, 32 : i64>>} {
  func.func @scale(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
    %c2 = arith.constant 2.0 : f32
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 32 {
        %v = affine.load %a[%i, %j] : memref<64x32xf32>
        %m = arith.mulf %v, %c2 : f32
        affine.store %m, %b[%i, %j] : memref<64x32xf32>
      }
    }
    return
  }
}
