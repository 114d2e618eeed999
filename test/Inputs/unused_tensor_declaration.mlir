// One kernel and a declaration nothing calls with a tensor signature, which
// one-shot bufferization across function boundaries refuses outright.
func.func private @unused_tensor_helper(tensor<8x8xf32>) -> tensor<8x8xf32>
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x8xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}
