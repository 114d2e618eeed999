// linalg.matmul accumulating into its own left operand: its loops read A as
// they update it; the matmul schedule computed every element from a stale A
// (found by a random linalg program generator).
func.func @main(%A: memref<32x32xf32>, %B: memref<32x32xf32>) {
  linalg.matmul ins(%A, %B : memref<32x32xf32>, memref<32x32xf32>) outs(%A : memref<32x32xf32>)
  return
}
