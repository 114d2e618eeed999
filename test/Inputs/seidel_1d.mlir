// An in-place 1-D Seidel stencil as C frontends emit it: iteration (t, i)
// reads A[i-1] written at (t, i-1) and A[i+1] written at (t-1, i+1), a
// dependence of distance (1, -1). Tiling the (t, i) band or unroll-and-
// jamming t reorders those and computes something else.
func.func @seidel_1d(%A: memref<256xf64>) {
  %c3 = arith.constant 3.0 : f64
  affine.for %t = 0 to 16 {
    affine.for %i = 1 to 255 {
      %a = affine.load %A[%i - 1] : memref<256xf64>
      %b = affine.load %A[%i] : memref<256xf64>
      %c = affine.load %A[%i + 1] : memref<256xf64>
      %s = arith.addf %a, %b : f64
      %s2 = arith.addf %s, %c : f64
      %r = arith.divf %s2, %c3 : f64
      affine.store %r, %A[%i] : memref<256xf64>
    }
  }
  return
}
