module {
  func.func @matvec(%A: memref<32x64xf32>, %x: memref<64xf32>, %y: memref<32xf32>) attributes {llvm.emit_c_interface} {
    affine.for %i = 0 to 32 {
      affine.for %k = 0 to 64 {
        %a = affine.load %A[%i, %k] : memref<32x64xf32>
        %b = affine.load %x[%k] : memref<64xf32>
        %c = affine.load %y[%i] : memref<32xf32>
        %m = arith.mulf %a, %b : f32
        %s = arith.addf %c, %m : f32
        affine.store %s, %y[%i] : memref<32xf32>
      }
    }
    return
  }
}
