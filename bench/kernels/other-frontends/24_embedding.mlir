#map = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module attributes {torch.debug_module_name = "Embedding"} {
  func.func @forward(%arg0: tensor<8xi64>) -> tensor<8x16xf32> {
    %cst = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<1x16xf32>
    %table0 = tensor.empty() : tensor<10x16xf32>
    %table = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst : tensor<1x16xf32>) outs(%table0 : tensor<10x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      %r = arith.addf %in, %f : f32
      linalg.yield %r : f32
    } -> tensor<10x16xf32>
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8xi64>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: i64, %out: f32):
      %2 = arith.index_cast %in : i64 to index
      %3 = linalg.index 1 : index
      %extracted = tensor.extract %table[%2, %3] : tensor<10x16xf32>
      linalg.yield %extracted : f32
    } -> tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
