// A called declaration returning a tensor (upstream's Linalg bufferize.mlir):
// one-shot bufferization across function boundaries cannot bufferize it.
func.func private @csum(%arg0: tensor<6xi64>) -> tensor<6xi64>
func.func public @main(%arg0: tensor<2x3xi1>) -> tensor<6xi64> {
  %0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<2x3xi1> into tensor<6xi1>
  %1 = tensor.empty() : tensor<6xi64>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<6xi1>) outs(%1 : tensor<6xi64>) {
  ^bb0(%arg1: i1, %arg2: i64):
    %4 = arith.extui %arg1 : i1 to i64
    linalg.yield %4 : i64
  } -> tensor<6xi64>
  %3 = func.call @csum(%2) : (tensor<6xi64>) -> tensor<6xi64>
  return %3 : tensor<6xi64>
}
