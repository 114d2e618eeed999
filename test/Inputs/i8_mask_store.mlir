// The same compare widened to i8 before it is stored: a byte per element.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @greater_bytes(%a: tensor<8x16xi64>, %b: tensor<8x16xi64>) -> tensor<8x16xi8> {
  %empty = tensor.empty() : tensor<8x16xi8>
  %mask = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xi64>, tensor<8x16xi64>) outs(%empty : tensor<8x16xi8>) {
  ^bb0(%x: i64, %y: i64, %out: i8):
    %gt = arith.cmpi sgt, %x, %y : i64
    %wide = arith.extui %gt : i1 to i8
    linalg.yield %wide : i8
  } -> tensor<8x16xi8>
  return %mask : tensor<8x16xi8>
}
