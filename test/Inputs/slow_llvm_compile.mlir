// Reduced from buddy-mlir's examples/BuddyMatmul/linalg-transposematmulb-f32.mlir: at
// LLVM -O3 the naive lowering of @main (constant sizes once @test is inlined)
// takes LLVM 20-30 s to compile on a 2-core machine, at -O2 under 0.1 s.
func.func private @printMemrefF32(memref<*xf32>)
func.func @test(%a : memref<?x?xf32>, %b : memref<?x?xf32>, %c : memref<?x?xf32>) {
  linalg.matmul_transpose_b ins(%a, %b: memref<?x?xf32>, memref<?x?xf32>) outs(%c: memref<?x?xf32>)
  return
}
func.func @main() {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %m0 = memref.alloc(%c32, %c1024) : memref<?x?xf32>
  %m1 = memref.alloc(%c32, %c1024) : memref<?x?xf32>
  %m2 = memref.alloc(%c32, %c32) : memref<?x?xf32>
  linalg.fill ins(%f1 : f32) outs(%m0 : memref<?x?xf32>)
  linalg.fill ins(%f1 : f32) outs(%m1 : memref<?x?xf32>)
  linalg.fill ins(%f0 : f32) outs(%m2 : memref<?x?xf32>)
  call @test(%m0, %m1, %m2) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %p = memref.cast %m2 : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%p) : (memref<*xf32>) -> ()
  return
}
