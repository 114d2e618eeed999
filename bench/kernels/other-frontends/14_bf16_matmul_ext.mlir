#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%arg0: tensor<16x32xbf16>, %arg1: tensor<32x16xbf16>) -> tensor<16x16xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<16x32xbf16>, tensor<32x16xbf16>) outs(%1 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %3 = tensor.empty() : tensor<16x16xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<16x16xf32>) outs(%3 : tensor<16x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %5 = arith.truncf %in : f32 to bf16
    linalg.yield %5 : bf16
  } -> tensor<16x16xbf16>
  return %4 : tensor<16x16xbf16>
}
