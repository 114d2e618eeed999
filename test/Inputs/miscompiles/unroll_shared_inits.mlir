// Found by an action-level scan (MLIR 19, upstream bug): two iter_args start from one constant; unrolling with a
// remainder starts both in the cleanup loop from the same result.
func.func @main(%a: memref<33xf32>, %b: memref<33xf32>, %out: memref<2xf32>) {
  %z = arith.constant 0.0 : f32
  %r:2 = affine.for %i = 0 to 33 iter_args(%s = %z, %t = %z) -> (f32, f32) {
    %x = affine.load %a[%i] : memref<33xf32>
    %y = affine.load %b[%i] : memref<33xf32>
    %s2 = arith.addf %s, %x : f32
    %t2 = arith.addf %t, %y : f32
    affine.yield %s2, %t2 : f32, f32
  }
  affine.store %r#0, %out[0] : memref<2xf32>
  affine.store %r#1, %out[1] : memref<2xf32>
  return
}
