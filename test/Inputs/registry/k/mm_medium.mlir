func.func @matmul(%A: memref<96x48xf32>, %B: memref<48x32xf32>, %C: memref<96x32xf32>) {
  linalg.matmul ins(%A, %B : memref<96x48xf32>, memref<48x32xf32>)
                outs(%C : memref<96x32xf32>)
  return
}
