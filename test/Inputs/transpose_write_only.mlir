// A transpose: B is written and not read, every element of it, so its copy
// back from affine-data-copy-generate's local buffer writes what was written.
func.func @transpose(%A: memref<24x16xf32>, %B: memref<16x24xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 24 {
      %v = affine.load %A[%j, %i] : memref<24x16xf32>
      affine.store %v, %B[%i, %j] : memref<16x24xf32>
    }
  }
  return
}
