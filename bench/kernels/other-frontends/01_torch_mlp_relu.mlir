#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module attributes {torch.debug_module_name = "MLP"} {
  func.func @forward(%arg0: tensor<8x64xf32>) -> tensor<8x32xf32> {
    %cst = arith.constant dense<0.0125> : tensor<32x64xf32>
    %cst_0 = arith.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<32xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x32xf32>
    %transposed = linalg.transpose ins(%cst : tensor<32x64xf32>) outs(%0 : tensor<64x32xf32>) permutation = [1, 0]
    %1 = tensor.empty() : tensor<8x32xf32>
    %2 = linalg.fill ins(%cst_1 : f32) outs(%1 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x64xf32>, tensor<64x32xf32>) outs(%2 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %cst_0 : tensor<8x32xf32>, tensor<32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.addf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<8x32xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x32xf32>) outs(%1 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.cmpf ugt, %in, %cst_1 : f32
      %7 = arith.select %6, %in, %cst_1 : f32
      linalg.yield %7 : f32
    } -> tensor<8x32xf32>
    return %5 : tensor<8x32xf32>
  }
}
