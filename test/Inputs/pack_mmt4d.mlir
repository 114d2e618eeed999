// Data-tiled matmul as data-tiling frontends write it: pack both operands
// and the accumulator into 8x1 / 8x8 tiles (padding the ragged edges), a
// linalg.mmt4d on the tiles, then unpack. MLIR 19 cannot bufferize
// tensor.pack or tensor.unpack.
func.func @mmt4d_matmul(%A: tensor<7x16xf32>, %B: tensor<16x13xf32>,
                        %C: tensor<7x13xf32>) -> tensor<7x13xf32> {
  %zero = arith.constant 0.0 : f32
  %a_empty = tensor.empty() : tensor<1x16x8x1xf32>
  %b_empty = tensor.empty() : tensor<2x16x8x1xf32>
  %c_empty = tensor.empty() : tensor<1x2x8x8xf32>
  %a = tensor.pack %A padding_value(%zero : f32) inner_dims_pos = [0, 1]
      inner_tiles = [8, 1] into %a_empty : tensor<7x16xf32> -> tensor<1x16x8x1xf32>
  %b = tensor.pack %B padding_value(%zero : f32) outer_dims_perm = [1, 0]
      inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %b_empty
      : tensor<16x13xf32> -> tensor<2x16x8x1xf32>
  %c = tensor.pack %C padding_value(%zero : f32) inner_dims_pos = [0, 1]
      inner_tiles = [8, 8] into %c_empty : tensor<7x13xf32> -> tensor<1x2x8x8xf32>
  %r = linalg.mmt4d ins(%a, %b : tensor<1x16x8x1xf32>, tensor<2x16x8x1xf32>)
      outs(%c : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %out = tensor.empty() : tensor<7x13xf32>
  %unpacked = tensor.unpack %r inner_dims_pos = [0, 1] inner_tiles = [8, 8]
      into %out : tensor<1x2x8x8xf32> -> tensor<7x13xf32>
  return %unpacked : tensor<7x13xf32>
}
