// A model with state as torch-mlir writes it: a mutable ml_program global,
// read, updated and stored back at every call.
ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %old = ml_program.global_load @state : tensor<4xf32>
  %new = arith.addf %old, %x : tensor<4xf32>
  ml_program.global_store @state = %new : tensor<4xf32>
  return %new : tensor<4xf32>
}
