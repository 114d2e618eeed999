// bf16 inputs, f32 accumulation, bf16 result, as torch-mlir emits mixed precision.
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @mm_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x16xbf16>) -> tensor<32x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<32x64xbf16>, tensor<64x16xbf16>) outs(%acc : tensor<32x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  %e2 = tensor.empty() : tensor<32x16xbf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<32x16xf32>) outs(%e2 : tensor<32x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %tr = arith.truncf %x : f32 to bf16
    linalg.yield %tr : bf16
  } -> tensor<32x16xbf16>
  return %t : tensor<32x16xbf16>
}
