// A rank-0 linalg.transpose: MLIR 19's verifier dereferences a null indexing
// map and crashes (found by a random linalg program generator).
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %r = linalg.transpose ins(%a : tensor<f32>) outs(%b : tensor<f32>) permutation = []
  return %r : tensor<f32>
}
