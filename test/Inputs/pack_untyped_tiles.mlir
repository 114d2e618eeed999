// Static inner tiles the result type leaves dynamic (upstream's
// fold-empty-op test): MLIR 19's lower_pack makes an invalid expand_shape.
func.func @f(%dst: tensor<?x?x?x?xf32>, %src: tensor<?x?xf32>) -> tensor<?x?x?x?xf32> {
  %p = tensor.pack %src inner_dims_pos = [0, 1] inner_tiles = [32, 32] into %dst : tensor<?x?xf32> -> tensor<?x?x?x?xf32>
  return %p : tensor<?x?x?x?xf32>
}
