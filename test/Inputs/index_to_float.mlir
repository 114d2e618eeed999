// Fills an array from its loop index, as a C frontend emits a[i] = (double)i.
func.func @fill(%out: memref<64xf64>) {
  affine.for %i = 0 to 64 {
    %n = arith.index_cast %i : index to i64
    %x = arith.sitofp %n : i64 to f64
    affine.store %x, %out[%i] : memref<64xf64>
  }
  return
}
