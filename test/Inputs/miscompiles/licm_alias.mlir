// Found by an action-level scan (MLIR 19, upstream bug): affine-loop-invariant-code-motion hoists what it must not here.
func.func @main(%a: memref<64xf32>, %acc: memref<4xf32>, %out: memref<64xf32>) {
  %alias = memref.cast %acc : memref<4xf32> to memref<?xf32>
  affine.for %i = 0 to 64 {
    %s = affine.load %acc[0] : memref<4xf32>
    %x = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %s, %x : f32
    affine.store %n, %out[%i] : memref<64xf32>
    affine.store %n, %alias[0] : memref<?xf32>
  }
  return
}
