// A copy written as a transpose with the identity permutation, on buffers:
// MLIR 19's canonicalizer erases it as if it did nothing.
func.func @copy(%a: memref<8x32xf32>, %b: memref<8x32xf32>) {
  linalg.transpose ins(%a : memref<8x32xf32>) outs(%b : memref<8x32xf32>) permutation = [0, 1]
  return
}
