// From MLIR's detensorize tests: a conditional branch with the same
// successor twice, carrying tensors. MLIR 19's bufferization fails on it
// (mlir-opt-19 --one-shot-bufferize too).
func.func @main(%c: i1, %t: tensor<i32>) -> tensor<i32> {
  cf.cond_br %c, ^bb1(%t : tensor<i32>), ^bb1(%t : tensor<i32>)
^bb1(%a: tensor<i32>):
  return %a : tensor<i32>
}
