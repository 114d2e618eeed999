// A reduction into a 0-d tensor, as torch-mlir emits sum(). After tiling,
// MLIR 19's affine-super-vectorize fails on its loop (the store does not
// move with the vectorized loop), so the default list must go on without it.
func.func @main(%arg0: tensor<16xf32>) -> tensor<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<f32>) -> tensor<f32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%arg0 : tensor<16xf32>) outs(%1 : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.addf %in, %out : f32
    linalg.yield %4 : f32
  } -> tensor<f32>
  return %2 : tensor<f32>
}
