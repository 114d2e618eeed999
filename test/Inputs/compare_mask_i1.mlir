// A torch-style comparison combined with a bool (i1) mask into a bool
// result. Vectorized, i1 loads and stores would treat the memrefs' bytes
// as packed bits.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<16x64xf32>, %mask: tensor<16x64xi1>) -> tensor<16x64xi1> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xi1>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mask : tensor<16x64xf32>, tensor<16x64xi1>) outs(%e : tensor<16x64xi1>) {
  ^bb0(%in: f32, %m: i1, %out: i1):
    %p = arith.cmpf ogt, %in, %zero : f32
    %q = arith.xori %p, %m : i1
    linalg.yield %q : i1
  } -> tensor<16x64xi1>
  return %r : tensor<16x64xi1>
}
