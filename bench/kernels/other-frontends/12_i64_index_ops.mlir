#map = affine_map<(d0, d1) -> (d0, d1)>
module attributes {torch.debug_module_name = "IntOps"} {
  func.func @forward(%arg0: tensor<8x16xi64>, %arg1: tensor<8x16xi64>) -> (tensor<8x16xi64>, tensor<8x16xi1>, tensor<8x16xf32>) {
    %c3_i64 = arith.constant 3 : i64
    %0 = tensor.empty() : tensor<8x16xi64>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<8x16xi64>, tensor<8x16xi64>) outs(%0 : tensor<8x16xi64>) {
    ^bb0(%in: i64, %in_0: i64, %out: i64):
      %4 = arith.muli %in, %in_0 : i64
      %5 = arith.addi %4, %c3_i64 : i64
      %6 = arith.remsi %5, %in_0 : i64
      linalg.yield %6 : i64
    } -> tensor<8x16xi64>
    %2 = tensor.empty() : tensor<8x16xi1>
    %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %arg1 : tensor<8x16xi64>, tensor<8x16xi64>) outs(%2 : tensor<8x16xi1>) {
    ^bb0(%in: i64, %in_0: i64, %out: i1):
      %4 = arith.cmpi sgt, %in, %in_0 : i64
      linalg.yield %4 : i1
    } -> tensor<8x16xi1>
    %e = tensor.empty() : tensor<8x16xf32>
    %f = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %3 : tensor<8x16xi64>, tensor<8x16xi1>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%in: i64, %b: i1, %out: f32):
      %i = linalg.index 1 : index
      %ii = arith.index_cast %i : index to i64
      %s = arith.select %b, %in, %ii : i64
      %fl = arith.sitofp %s : i64 to f32
      linalg.yield %fl : f32
    } -> tensor<8x16xf32>
    return %1, %3, %f : tensor<8x16xi64>, tensor<8x16xi1>, tensor<8x16xf32>
  }
}
