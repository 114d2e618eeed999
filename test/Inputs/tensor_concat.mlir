// torch.cat as torch-mlir emits it: tensor.concat, which MLIR 19 cannot bufferize
// without first decomposing it.
func.func @main(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
