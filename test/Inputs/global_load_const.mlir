// A weight read with ml_program.global_load_const, which MLIR 19 cannot
// bufferize (it can global_load): no pipeline lowers this module.
ml_program.global private @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %w = ml_program.global_load_const @w : tensor<4xf32>
  %r = arith.addf %a, %w : tensor<4xf32>
  return %r : tensor<4xf32>
}
