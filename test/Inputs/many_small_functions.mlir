// Five kernels far below the shipped model's training range, as a frontend
// emitting many small helpers writes them.
func.func @fill4(%x: memref<4xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 4 {
    affine.store %c, %x[%i] : memref<4xf32>
  }
  return
}
func.func @fill8(%x: memref<8xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %c, %x[%i] : memref<8xf32>
  }
  return
}
func.func @fill16(%x: memref<16xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 16 {
    affine.store %c, %x[%i] : memref<16xf32>
  }
  return
}
func.func @fill32(%x: memref<32xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 32 {
    affine.store %c, %x[%i] : memref<32xf32>
  }
  return
}
func.func @twice32(%x: memref<32xf32>) {
  %c = arith.constant 2.0 : f32
  affine.for %i = 0 to 32 {
    affine.store %c, %x[%i] : memref<32xf32>
  }
  return
}
