func.func @main(%a: tensor<4xi32>) -> tensor<4xf32> {
  %b = tensor.bitcast %a : tensor<4xi32> to tensor<4xf32>
  return %b : tensor<4xf32>
}
