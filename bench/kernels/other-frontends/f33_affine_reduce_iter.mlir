module {
  func.func @rowmax(%A: memref<64x128xf32>, %m: memref<64xf32>) {
    %ninf = arith.constant 0xFF800000 : f32
    affine.for %i = 0 to 64 {
      %r = affine.for %j = 0 to 128 iter_args(%acc = %ninf) -> (f32) {
        %v = affine.load %A[%i, %j] : memref<64x128xf32>
        %mx = arith.maximumf %acc, %v : f32
        affine.yield %mx : f32
      }
      affine.store %r, %m[%i] : memref<64xf32>
    }
    return
  }
}
