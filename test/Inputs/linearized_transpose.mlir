// An in-place transpose of a 8x8x8x8 array flattened to one dimension, as C
// frontends write arrays they index by hand: every element is read at the
// transposed position and written at its own, so some dependences run
// backwards and tiling must be refused. Upstream's dependence analysis
// (Fourier-Motzkin elimination) did not finish on this nest.
func.func @permute(%A: memref<4096xf32>) {
  affine.for %i0 = 0 to 8 {
    affine.for %i1 = 0 to 8 {
      affine.for %i2 = 0 to 8 {
        affine.for %i3 = 0 to 8 {
          %v = affine.load %A[%i3 * 512 + %i2 * 64 + %i1 * 8 + %i0] : memref<4096xf32>
          affine.store %v, %A[%i0 * 512 + %i1 * 64 + %i2 * 8 + %i3] : memref<4096xf32>
        }
      }
    }
  }
  return
}
