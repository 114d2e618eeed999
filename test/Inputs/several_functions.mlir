// Functions of every kind a selection treats apart, for deciding them on
// several threads (Selector::selectSource) against deciding them in turn:
// memref kernels (moved into their scratch modules), a tensor callee and
// its caller (copied: each one's scratch carries the other's body), a
// stencil whose tiling is refused (the IR stays as it was), and a function
// where a pass fails (its scratch is rebuilt from the text).
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
func.func @seidel_1d(%A: memref<256xf64>) {
  %c3 = arith.constant 3.0 : f64
  affine.for %t = 0 to 16 {
    affine.for %i = 1 to 255 {
      %a = affine.load %A[%i - 1] : memref<256xf64>
      %b = affine.load %A[%i] : memref<256xf64>
      %c = affine.load %A[%i + 1] : memref<256xf64>
      %s = arith.addf %a, %b : f64
      %s2 = arith.addf %s, %c : f64
      %r = arith.divf %s2, %c3 : f64
      affine.store %r, %A[%i] : memref<256xf64>
    }
  }
  return
}
func.func @pack_dynamic(%A: memref<7x16xf32>, %tile: index, %out: memref<?x16x?x1xf32>) {
  %t = bufferization.to_tensor %A restrict : memref<7x16xf32>
  %into = bufferization.to_tensor %out restrict writable : memref<?x16x?x1xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pack %t padding_value(%zero : f32) inner_dims_pos = [0, 1]
      inner_tiles = [%tile, 1] into %into : tensor<7x16xf32> -> tensor<?x16x?x1xf32>
  bufferization.materialize_in_destination %p in restrict writable %out
      : (tensor<?x16x?x1xf32>, memref<?x16x?x1xf32>) -> ()
  return
}
func.func @scale(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %two = arith.constant 2.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func @scaled_matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = func.call @scale(%a) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%s, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func @main(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  call @matmul(%a, %b, %c) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  call @relu(%c) : (memref<64x64xf32>) -> ()
  return
}
