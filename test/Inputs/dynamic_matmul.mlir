// A matmul on buffers of any size: --shape gives them, and must agree with
// what linalg.matmul reads (A is MxK, B KxN, C MxN).
func.func @mm(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}
