func.func @main(%src: tensor<64x32xf32>, %idx: tensor<16x1xindex>) -> tensor<16x32xf32> {
  %g = tensor.gather %src[%idx] gather_dims([0]) unique : (tensor<64x32xf32>, tensor<16x1xindex>) -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}
