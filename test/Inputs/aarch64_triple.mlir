// A cross-compiling frontend's module: an aarch64 triple and data layout.
module attributes {llvm.data_layout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128", llvm.target_triple = "aarch64-unknown-linux-gnu"} {
  func.func @scale(%a: memref<256xf32>, %b: memref<256xf32>) {
    %c2 = arith.constant 2.0 : f32
    affine.for %i = 0 to 256 {
      %v = affine.load %a[%i] : memref<256xf32>
      %m = arith.mulf %v, %c2 : f32
      affine.store %m, %b[%i] : memref<256xf32>
    }
    return
  }
}
