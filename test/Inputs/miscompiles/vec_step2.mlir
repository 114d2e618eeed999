// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// affine-super-vectorize ignores the step: contiguous 4-lane vectors where the loop touches every other element.
func.func @step2(%x: memref<16xf32>, %y: memref<16xf32>) {
  affine.for %i = 0 to 16 step 2 {
    %v = affine.load %x[%i] : memref<16xf32>
    affine.store %v, %y[%i] : memref<16xf32>
  }
  return
}
