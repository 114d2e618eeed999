// Two kernels of different kinds and a caller: a decision per function.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>)
                outs(%c : memref<64x64xf32>)
  return
}
func.func @relu(%x: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<64x64xf32>) {
  ^bb0(%v: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}
func.func @main(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  call @matmul(%a, %b, %c) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  call @relu(%c) : (memref<64x64xf32>) -> ()
  return
}
