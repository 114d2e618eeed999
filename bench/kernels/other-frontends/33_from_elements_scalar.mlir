func.func @forward(%arg0: tensor<4x4xf32>, %arg1: tensor<1xi64>) -> (tensor<4x4xf32>, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %i = tensor.extract %arg1[%c0] : tensor<1xi64>
  %f = arith.sitofp %i : i64 to f32
  %0 = tensor.empty() : tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = arith.mulf %in, %f : f32
    linalg.yield %2 : f32
  } -> tensor<4x4xf32>
  %x = tensor.extract %1[%c0, %c0] : tensor<4x4xf32>
  %s = arith.addf %x, %f : f32
  %r = tensor.from_elements %s : tensor<1xf32>
  return %1, %r : tensor<4x4xf32>, tensor<1xf32>
}
