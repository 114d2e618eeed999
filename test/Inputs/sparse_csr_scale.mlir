// A kernel on a CSR sparse matrix, as MLIR's sparse compiler takes it: the
// #sparse_tensor.encoding is what makes it sparse. Dense bufferization would
// quietly drop it.
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

func.func @scale_csr(%m: tensor<16x16xf32, #CSR>) -> tensor<16x16xf32, #CSR> {
  %two = arith.constant 2.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%m : tensor<16x16xf32, #CSR>) {
  ^bb0(%x: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  } -> tensor<16x16xf32, #CSR>
  return %r : tensor<16x16xf32, #CSR>
}
