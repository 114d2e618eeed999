module {
  func.func @scale_block(%A: memref<64x64xf32>, %s: f32) {
    %sv = memref.subview %A[8, 16] [32, 16] [1, 2] : memref<64x64xf32> to memref<32x16xf32, strided<[64, 2], offset: 528>>
    affine.for %i = 0 to 32 {
      affine.for %j = 0 to 16 {
        %v = affine.load %sv[%i, %j] : memref<32x16xf32, strided<[64, 2], offset: 528>>
        %m = arith.mulf %v, %s : f32
        affine.store %m, %sv[%i, %j] : memref<32x16xf32, strided<[64, 2], offset: 528>>
      }
    }
    return
  }
}
