// A memref layout with no strided form (a transpose map): MLIR 19's func-to-llvm
// leaves such functions unconverted, and the translation blamed func.func.
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @matmul(%A: memref<4x4xf32, #tr>, %B: memref<4x4xf32>, %C: memref<4x4xf32>) {
  linalg.matmul ins(%A, %B : memref<4x4xf32, #tr>, memref<4x4xf32>) outs(%C : memref<4x4xf32>)
  return
}
func.func @main() {
  %a = memref.alloc() : memref<4x4xf32, #tr>
  %b = memref.alloc() : memref<4x4xf32>
  %o = memref.alloc() : memref<4x4xf32>
  call @matmul(%a, %b, %o) : (memref<4x4xf32, #tr>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  return
}
