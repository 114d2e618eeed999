// torch-mlir output printed with its large constants elided, as pasted in
// bug reports: the weight has no data.
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense_resource<__elided__> : tensor<8x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
