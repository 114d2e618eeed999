#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @forward(%arg0: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xi64>) {
  %cst = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = tensor.empty() : tensor<8xi64>
  %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<8xi64>) -> tensor<8xi64>
  %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x32xf32>) outs(%1, %3 : tensor<8xf32>, tensor<8xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i64
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i64
    linalg.yield %7, %9 : f32, i64
  } -> (tensor<8xf32>, tensor<8xi64>)
  return %4#0, %4#1 : tensor<8xf32>, tensor<8xi64>
}
