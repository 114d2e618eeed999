// A dense layer with a ReLU in TOSA, as TFLite's and torch-mlir's TOSA
// backends emit it: constant weights, a batched matmul, a broadcast bias add
// and a clamp.
func.func @main(%x: tensor<1x16x32xf32>) -> tensor<1x16x8xf32> {
  %w = "tosa.const"() <{value = dense<0.0625> : tensor<1x32x8xf32>}> : () -> tensor<1x32x8xf32>
  %b = "tosa.const"() <{value = dense<[[[-0.4, -0.3, -0.2, -0.1, 0.1, 0.2, 0.3, 0.4]]]> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
  %0 = tosa.matmul %x, %w : (tensor<1x16x32xf32>, tensor<1x32x8xf32>) -> tensor<1x16x8xf32>
  %1 = tosa.add %0, %b : (tensor<1x16x8xf32>, tensor<1x1x8xf32>) -> tensor<1x16x8xf32>
  %2 = tosa.clamp %1 {min_fp = 0.0 : f32, max_fp = 3.40282347E+38 : f32, min_int = 0 : i64, max_int = 2147483647 : i64} : (tensor<1x16x8xf32>) -> tensor<1x16x8xf32>
  return %2 : tensor<1x16x8xf32>
}
