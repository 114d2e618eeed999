module attributes {torch.debug_module_name = "BMM"} {
  func.func @forward(%arg0: tensor<4x16x32xf32>, %arg1: tensor<4x32x24xf32>) -> tensor<4x16x24xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x16x24xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
    %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<4x16x32xf32>, tensor<4x32x24xf32>) outs(%1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
    return %2 : tensor<4x16x24xf32>
  }
}
