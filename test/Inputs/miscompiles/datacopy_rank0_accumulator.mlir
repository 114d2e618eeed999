func.func @forward(%a: memref<32x32xf32>, %acc: memref<f32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %v = affine.load %a[%i, %j] : memref<32x32xf32>
      %s = affine.load %acc[] : memref<f32>
      %t = arith.addf %v, %s : f32
      affine.store %t, %acc[] : memref<f32>
    }
  }
  return
}
