// torch-mlir style: linalg on tensors returning a fresh tensor, with a dense weight.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<64x128xf32>) -> tensor<64x32xf32> {
  %w = arith.constant dense<0.5> : tensor<128x32xf32>
  %bias = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<32xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x32xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x32xf32>) -> tensor<64x32xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x32xf32>)
                      outs(%filled : tensor<64x32xf32>) -> tensor<64x32xf32>
  %out = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%empty : tensor<64x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  return %out : tensor<64x32xf32>
}
