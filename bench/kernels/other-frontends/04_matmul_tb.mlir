func.func @main(%a: tensor<32x64xf32>, %b: tensor<48x64xf32>) -> tensor<32x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<32x48xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %2 = linalg.matmul_transpose_b ins(%a, %b : tensor<32x64xf32>, tensor<48x64xf32>) outs(%1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %2 : tensor<32x48xf32>
}
