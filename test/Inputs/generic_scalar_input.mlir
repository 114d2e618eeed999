// A linalg.generic with a scalar input, as linalg-generalize-named-ops makes
// of a linalg.fill (torch-mlir fills every accumulator): MLIR 19's
// linalg-inline-scalar-operands builds a tensor.extract of the f32 and
// crashes.
#map = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @main(%x: tensor<8x8xf32>, %c: f32) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #scalar, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<8x8xf32>, f32) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
