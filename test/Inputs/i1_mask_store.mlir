// A compare whose i1 mask is a result, as torch-mlir emits `a > b`: after
// bufferization the loops store i1 elements, one byte each.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @greater(%a: tensor<8x16xi64>, %b: tensor<8x16xi64>) -> tensor<8x16xi1> {
  %empty = tensor.empty() : tensor<8x16xi1>
  %mask = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xi64>, tensor<8x16xi64>) outs(%empty : tensor<8x16xi1>) {
  ^bb0(%x: i64, %y: i64, %out: i1):
    %gt = arith.cmpi sgt, %x, %y : i64
    linalg.yield %gt : i1
  } -> tensor<8x16xi1>
  return %mask : tensor<8x16xi1>
}
