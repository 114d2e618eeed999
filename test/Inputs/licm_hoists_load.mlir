// affine-loop-invariant-code-motion hoisting a load and what it computes out of
// a loop that may run zero times: harmless, so the action stays legal.
func.func @scale(%a: memref<1xf32>, %b: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %v = affine.load %a[0] : memref<1xf32>
    %s = arith.mulf %v, %v : f32
    affine.store %s, %b[%i] : memref<?xf32>
  }
  return
}
