module {
  func.func @main(%arg0: tensor<1x16x32xf32>) -> tensor<1x16x8xf32> {
    %w = "tosa.const"() <{value = dense<0.125> : tensor<1x32x8xf32>}> : () -> tensor<1x32x8xf32>
    %b = "tosa.const"() <{value = dense<[[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]]]> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
    %0 = tosa.matmul %arg0, %w : (tensor<1x16x32xf32>, tensor<1x32x8xf32>) -> tensor<1x16x8xf32>
    %1 = tosa.add %0, %b : (tensor<1x16x8xf32>, tensor<1x1x8xf32>) -> tensor<1x16x8xf32>
    return %1 : tensor<1x16x8xf32>
  }
}
