module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 1882 : i32}} {
  func.func @main(%arg0: tensor<1x16x16x4xf32>) -> tensor<1x16x16x8xf32> {
    %w = "tosa.const"() <{value = dense<0.03125> : tensor<8x3x3x4xf32>}> : () -> tensor<8x3x3x4xf32>
    %b = "tosa.const"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
    %0 = tosa.conv2d %arg0, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>) -> tensor<1x16x16x8xf32>
    %1 = tosa.clamp %0 {max_fp = 3.40282347E+38 : f32, max_int = 2147483647 : i64, min_fp = 0.000000e+00 : f32, min_int = 0 : i64} : (tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
    return %1 : tensor<1x16x16x8xf32>
  }
}
