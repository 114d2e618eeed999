// A small loop that calls a C library function defined nowhere in the
// module: what one call executes is not known, so the policy decides.
func.func private @expf(f32) -> f32

func.func @exp_all(%m: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %x = affine.load %m[%i] : memref<64xf32>
    %e = func.call @expf(%x) : (f32) -> f32
    affine.store %e, %m[%i] : memref<64xf32>
  }
  return
}
