func.func @main(%arg0: tensor<16xf32>, %arg1: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %0 = tensor.empty() : tensor<8x16xf32>
  %bc = linalg.broadcast ins(%arg0 : tensor<16xf32>) outs(%0 : tensor<8x16xf32>) dimensions = [0]
  %1 = tensor.empty() : tensor<8x16xf32>
  %mapped = linalg.map { arith.mulf } ins(%bc, %arg1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%1 : tensor<8x16xf32>)
  %2 = tensor.empty() : tensor<8x16xf32>
  %mapped2 = linalg.map ins(%mapped : tensor<8x16xf32>) outs(%2 : tensor<8x16xf32>)
    (%x: f32) {
      %t = math.tanh %x : f32
      linalg.yield %t : f32
    }
  %cst = arith.constant 0.000000e+00 : f32
  %3 = tensor.empty() : tensor<8xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<8xf32>) -> tensor<8xf32>
  %reduced = linalg.reduce ins(%mapped2 : tensor<8x16xf32>) outs(%4 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %mapped2, %reduced : tensor<8x16xf32>, tensor<8xf32>
}
