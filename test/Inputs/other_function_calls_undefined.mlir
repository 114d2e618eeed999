// The entry @k is self-contained; @other, which it never calls, calls a
// declaration no library defines (as upstream's sincos-fusion test does).
func.func @k(%a: memref<16xf32>, %b: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %b[%i] : memref<16xf32>
  }
  return
}
func.func private @sink(f32)
func.func @other(%x: f32) {
  func.call @sink(%x) : (f32) -> ()
  return
}
