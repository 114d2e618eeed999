// A pack whose inner tile is only known at run time: MLIR 19 can neither
// bufferize it nor lower it to pad + reshape + transpose.
func.func @pack_dynamic(%A: tensor<7x16xf32>, %tile: index,
                        %into: tensor<?x16x?x1xf32>) -> tensor<?x16x?x1xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pack %A padding_value(%zero : f32) inner_dims_pos = [0, 1]
      inner_tiles = [%tile, 1] into %into : tensor<7x16xf32> -> tensor<?x16x?x1xf32>
  return %p : tensor<?x16x?x1xf32>
}
