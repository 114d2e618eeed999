// Elementwise arith and math on whole tensors, as upstream tests and
// hand-written IR apply them (no linalg op): one-shot bufferization cannot.
func.func @gelu_like(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %s = arith.addf %x, %y : tensor<64x128xf32>
  %e = math.exp %s : tensor<64x128xf32>
  %m = arith.mulf %e, %x : tensor<64x128xf32>
  return %m : tensor<64x128xf32>
}
