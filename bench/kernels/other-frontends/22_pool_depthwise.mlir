func.func @main(%arg0: tensor<1x18x18x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x16x16x8xf32>) {
  %cst = arith.constant 0xFF800000 : f32
  %cst0 = arith.constant 0.000000e+00 : f32
  %k = tensor.empty() : tensor<3x3xf32>
  %0 = tensor.empty() : tensor<1x8x8x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %2 = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg0, %k : tensor<1x18x18x8xf32>, tensor<3x3xf32>) outs(%1 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %w = arith.constant dense<0.111> : tensor<3x3x8xf32>
  %3 = tensor.empty() : tensor<1x16x16x8xf32>
  %4 = linalg.fill ins(%cst0 : f32) outs(%3 : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  %5 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %w : tensor<1x18x18x8xf32>, tensor<3x3x8xf32>) outs(%4 : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  return %2, %5 : tensor<1x8x8x8xf32>, tensor<1x16x16x8xf32>
}
