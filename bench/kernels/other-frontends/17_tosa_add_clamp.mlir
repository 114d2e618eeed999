module {
  func.func @main(%arg0: tensor<1x8x16xf32>, %arg1: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
    %0 = tosa.add %arg0, %arg1 : (tensor<1x8x16xf32>, tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    %1 = tosa.clamp %0 {max_fp = 6.000000e+00 : f32, max_int = 6 : i64, min_fp = 0.000000e+00 : f32, min_int = 0 : i64} : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
    return %1 : tensor<1x8x16xf32>
  }
}
