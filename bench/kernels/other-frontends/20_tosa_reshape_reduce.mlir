module {
  func.func @main(%arg0: tensor<2x4x8xf32>) -> (tensor<8x8xf32>, tensor<2x1x8xf32>) {
    %0 = tosa.reshape %arg0 {new_shape = array<i64: 8, 8>} : (tensor<2x4x8xf32>) -> tensor<8x8xf32>
    %1 = tosa.reduce_sum %arg0 {axis = 1 : i32} : (tensor<2x4x8xf32>) -> tensor<2x1x8xf32>
    %2 = tosa.exp %0 : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %3 = tosa.mul %2, %0 {shift = 0 : i8} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    return %3, %1 : tensor<8x8xf32>, tensor<2x1x8xf32>
  }
}
