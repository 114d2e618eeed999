module attributes {torch.debug_module_name = "Reshape"} {
  func.func @forward(%arg0: tensor<2x3x4x5xf32>) -> (tensor<6x20xf32>, tensor<2x3x2x2x5xf32>) {
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2, 3]] : tensor<2x3x4x5xf32> into tensor<6x20xf32>
    %0 = tensor.empty() : tensor<6x20xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<6x20xf32>) outs(%0 : tensor<6x20xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = math.exp %in : f32
      linalg.yield %2 : f32
    } -> tensor<6x20xf32>
    %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3], [4]] output_shape [2, 3, 2, 2, 5] : tensor<2x3x4x5xf32> into tensor<2x3x2x2x5xf32>
    return %1, %expanded : tensor<6x20xf32>, tensor<2x3x2x2x5xf32>
  }
}
