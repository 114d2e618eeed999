// Found by a random linalg-program generator (fuzz9): the returned op is a row
// sum; tile-fusing it 8x64 put its linalg.fill inside the reduction's tile loop.
// Row sums of (a + a), init 1.0. tensor.tile-fuse-8x64 tiles the returned op (a reduction
// along d1) 8x64 and fuses its producers, the linalg.fill included, into the tile loops:
// the accumulator is re-filled with 1.0 for each of the two 64-wide reduction tiles.
func.func @kernel(%a: tensor<16x128xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16x128xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x128xf32>) outs(%e : tensor<16x128xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %i : f32
    linalg.yield %s : f32
  } -> tensor<16x128xf32>
  %one = arith.constant 1.0 : f32
  %t = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%one : f32) outs(%t : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x128xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %o, %i : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
