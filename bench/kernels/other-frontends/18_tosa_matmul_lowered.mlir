#map = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {
  func.func @main(%arg0: tensor<1x16x32xf32>) -> tensor<1x16x8xf32> {
    %cst = arith.constant dense<1.250000e-01> : tensor<1x32x8xf32>
    %cst_0 = arith.constant dense<[[[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 5.000000e-01, 6.000000e-01, 0.699999988, 8.000000e-01]]]> : tensor<1x1x8xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x16x8xf32>
    %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<1x16x8xf32>) -> tensor<1x16x8xf32>
    %2 = linalg.batch_matmul ins(%arg0, %cst : tensor<1x16x32xf32>, tensor<1x32x8xf32>) outs(%1 : tensor<1x16x8xf32>) -> tensor<1x16x8xf32>
    %3 = tensor.empty() : tensor<1x16x8xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %cst_0 : tensor<1x16x8xf32>, tensor<1x1x8xf32>) outs(%3 : tensor<1x16x8xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %5 = arith.addf %in, %in_2 : f32
      linalg.yield %5 : f32
    } -> tensor<1x16x8xf32>
    return %4 : tensor<1x16x8xf32>
  }
}

