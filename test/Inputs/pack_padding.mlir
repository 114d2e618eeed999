// From MLIR's own tests (single_dim_packing_with_padding): lowering the pack
// gives a linalg.transpose with the identity permutation, which MLIR 19's
// canonicalizer erased once bufferized, returning an unwritten buffer.
func.func @single_dim_packing_with_padding(%arg0: tensor<255xf32>) -> tensor<8x32xf32> {
  %empty = tensor.empty() : tensor<8x32xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.pack %arg0 padding_value(%cst : f32) inner_dims_pos = [0] inner_tiles = [32] into %empty : tensor<255xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
