// A zero-stride tensor.extract_slice (row 1, eight times) as the destination of
// a generic: MLIR 19's one-shot bufferization writes through the overlapping
// view in place, so even the naive lowering computes something else (found by
// a random linalg program generator).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%A: tensor<3x32xf32>, %B: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %s = tensor.extract_slice %A[1, 0] [8, 32] [0, 1] : tensor<3x32xf32> to tensor<8x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%B : tensor<8x32xf32>) outs(%s : tensor<8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %g : tensor<8x32xf32>
}
