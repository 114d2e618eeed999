// One kernel and a declaration nothing calls that returns a tensor, which
// one-shot bufferization across function boundaries refuses outright, and
// one that only takes a tensor, which it gives a memref argument.
func.func private @unused_tensor_helper(tensor<8x8xf32>) -> tensor<8x8xf32>
func.func private @debug_print(tensor<8x8xf32>)
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x8xf32>
  %c = linalg.fill ins(%zero : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %d = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}
