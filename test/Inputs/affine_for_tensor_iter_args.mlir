// HEIR's loop style (google/heir tests/Examples/common/loop.mlir): an affine.for carrying a
// tensor in iter_args, which MLIR 19 cannot bufferize; the lowering makes it an scf.for first.
func.func @loop(%arg0: tensor<8xf32> {secret.secret}) -> tensor<8xf32> {
  %c1_f32 = arith.constant dense<1.0> : tensor<8xf32>
  %0 = affine.for %i = 0 to 8 iter_args(%sum_iter = %c1_f32) -> tensor<8xf32> {
    %2 = arith.mulf %arg0, %sum_iter : tensor<8xf32>
    %3 = arith.subf %2, %c1_f32 : tensor<8xf32>
    affine.yield %3 : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}
