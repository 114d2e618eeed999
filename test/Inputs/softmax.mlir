// torch.nn.functional.softmax(x @ w, dim=1) as torch-mlir's linalg-on-tensors
// output writes it: linalg.softmax, which no lowering to loops handles.
func.func @forward(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x16xf32>) -> tensor<8x16xf32>
  %logits = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32>)
                          outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %out = tensor.empty() : tensor<8x16xf32>
  %probs = linalg.softmax dimension(1) ins(%logits : tensor<8x16xf32>)
                                       outs(%out : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %probs : tensor<8x16xf32>
}
