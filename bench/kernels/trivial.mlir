// The smallest useful kernel: the harness overhead benchmark runs it.
func.func @add(%a: memref<16xf32>, %b: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    %y = affine.load %b[%i] : memref<16xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %b[%i] : memref<16xf32>
  }
  return
}
