// Found by an action-level scan (MLIR 19, upstream bug): a 2x subsample as a linalg.generic on tensors; once
// lowered to affine loops, affine-super-vectorize reads the stride-2 input as a contiguous vector.
#in = affine_map<(d0, d1) -> (d0, 2 * d1)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%a: tensor<16x64xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
