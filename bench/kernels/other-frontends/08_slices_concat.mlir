func.func @main(%arg0: tensor<8x32xf32>, %arg1: tensor<8x16xf32>) -> tensor<8x48xf32> {
  %s0 = tensor.extract_slice %arg0[0, 0] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
  %s1 = tensor.extract_slice %arg0[0, 16] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
  %0 = tensor.empty() : tensor<8x16xf32>
  %sum = linalg.add ins(%s0, %s1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %cat = tensor.concat dim(1) %sum, %arg1, %s0 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x48xf32>
  %ins = tensor.insert_slice %s1 into %cat[0, 32] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<8x48xf32>
  return %ins : tensor<8x48xf32>
}
