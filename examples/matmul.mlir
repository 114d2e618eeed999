// linalg.matmul 256x256x256 f32 in destination-passing style: C += A * B.
func.func @matmul(%A: memref<256x256xf32>, %B: memref<256x256xf32>,
                  %C: memref<256x256xf32>) {
  linalg.matmul ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>)
                outs(%C : memref<256x256xf32>)
  return
}
