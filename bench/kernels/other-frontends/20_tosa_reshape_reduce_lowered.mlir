#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<2x4x8xf32>) -> (tensor<8x8xf32>, tensor<2x1x8xf32>) {
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
    %0 = tensor.empty() : tensor<2x8xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %reduced = linalg.reduce ins(%arg0 : tensor<2x4x8xf32>) outs(%1 : tensor<2x8xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %6 = arith.addf %in, %init : f32
        linalg.yield %6 : f32
      }
    %expanded = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [2, 1, 8] : tensor<2x8xf32> into tensor<2x1x8xf32>
    %2 = tensor.empty() : tensor<8x8xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<8x8xf32>) outs(%2 : tensor<8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.exp %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x8xf32>
    %4 = tensor.empty() : tensor<8x8xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %collapsed : tensor<8x8xf32>, tensor<8x8xf32>) outs(%4 : tensor<8x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %6 = arith.mulf %in, %in_0 : f32
      linalg.yield %6 : f32
    } -> tensor<8x8xf32>
    return %5, %expanded : tensor<8x8xf32>, tensor<2x1x8xf32>
  }
}

