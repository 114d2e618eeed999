// Elementwise arith directly on tensors, as frontends emit before
// linalg-ification: one-shot-bufferize alone cannot bufferize arith.addf on
// a tensor, so the policy's usual first action fails on it.
func.func @sum() -> tensor<4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %s = arith.addf %a, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}
