// Found by an action-level scan (MLIR 19, upstream bug): affine-loop-invariant-code-motion hoists what it must not here.
func.func private @bump(%m: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %v = memref.load %m[%c0] : memref<1xf32>
  %w = arith.addf %v, %one : f32
  memref.store %w, %m[%c0] : memref<1xf32>
  return
}
func.func @main(%a: memref<64xf32>, %acc: memref<1xf32>, %out: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %s = affine.load %acc[0] : memref<1xf32>
    %x = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %s, %x : f32
    affine.store %n, %out[%i] : memref<64xf32>
    func.call @bump(%acc) : (memref<1xf32>) -> ()
  }
  return
}
