// A tiled transpose: B is written and not read, every element, by tiles of 8
// rows; counted iteration by iteration, its copy-out is legal.
#lb = affine_map<(d0) -> (d0)>
#ub = affine_map<(d0) -> (d0 + 8)>
func.func @k(%A: memref<16x32xf32>, %B: memref<32x16xf32>) {
  affine.for %ii = 0 to 32 step 8 {
    affine.for %i = #lb(%ii) to #ub(%ii) {
      affine.for %j = 0 to 16 {
        %v = affine.load %A[%j, %i] : memref<16x32xf32>
        affine.store %v, %B[%i, %j] : memref<32x16xf32>
      }
    }
  }
  return
}
