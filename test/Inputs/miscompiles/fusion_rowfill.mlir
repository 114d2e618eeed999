// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// affine-loop-fusion moves the row-zeroing stores (an unrolled fill) into the consumer's inner loop, re-zeroing updated columns.
func.func @f(%out: memref<4x4xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 4 {
    affine.store %z, %out[%i, 0] : memref<4x4xf32>
    affine.store %z, %out[%i, 1] : memref<4x4xf32>
    affine.store %z, %out[%i, 2] : memref<4x4xf32>
    affine.store %z, %out[%i, 3] : memref<4x4xf32>
  }
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      %v = affine.load %out[%i, %j] : memref<4x4xf32>
      %w = arith.addf %v, %one : f32
      affine.store %w, %out[%i, %j] : memref<4x4xf32>
    }
  }
  return
}
