// A kernel whose work is dead (as some upstream loop tests are): it writes
// only to a local buffer that nothing reads, so LLVM removes the loop and
// a measurement times an empty call.
func.func @dead_square(%a: memref<256xf32>) {
  %tmp = memref.alloca() : memref<256xf32>
  affine.for %i = 0 to 256 {
    %v = affine.load %a[%i] : memref<256xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %tmp[%i] : memref<256xf32>
  }
  return
}
