func.func @main(%a: tensor<16x32xi8>, %b: tensor<32x16xi8>) -> tensor<16x16xi32> {
  %c0 = arith.constant 0 : i32
  %za = arith.constant 1 : i32
  %zb = arith.constant 2 : i32
  %0 = tensor.empty() : tensor<16x16xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<16x16xi32>) -> tensor<16x16xi32>
  %2 = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<16x32xi8>, tensor<32x16xi8>, i32, i32) outs(%1 : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %2 : tensor<16x16xi32>
}
