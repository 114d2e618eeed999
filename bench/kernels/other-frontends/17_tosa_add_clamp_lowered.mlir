#map = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {
  func.func @main(%arg0: tensor<1x8x16xf32>, %arg1: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
    %0 = tensor.empty() : tensor<1x8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<1x8x16xf32>, tensor<1x8x16xf32>) outs(%0 : tensor<1x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.addf %in, %in_0 : f32
      linalg.yield %4 : f32
    } -> tensor<1x8x16xf32>
    %2 = tensor.empty() : tensor<1x8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<1x8x16xf32>) outs(%2 : tensor<1x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %cst = arith.constant 0.000000e+00 : f32
      %cst_0 = arith.constant 6.000000e+00 : f32
      %4 = arith.minimumf %in, %cst_0 : f32
      %5 = arith.maximumf %4, %cst : f32
      linalg.yield %5 : f32
    } -> tensor<1x8x16xf32>
    return %3 : tensor<1x8x16xf32>
  }
}

