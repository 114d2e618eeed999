func.func @matmul(%A: memref<64x48xf32>, %B: memref<48x32xf32>, %C: memref<64x32xf32>) {
  linalg.matmul ins(%A, %B : memref<64x48xf32>, memref<48x32xf32>)
                outs(%C : memref<64x32xf32>)
  return
}
