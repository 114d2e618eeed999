// From MLIR's own one-shot-bufferize tests (@scf_for_is_reading): the loop
// yields a tensor that is not its iteration argument, which one-shot
// bufferization refuses unless told allow-return-allocs-from-loops.
func.func @f(%A : tensor<8xf32>, %B : tensor<8xf32>, %n : index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %iv = %c0 to %n step %c1 iter_args(%t = %A) -> tensor<8xf32> {
    scf.yield %B : tensor<8xf32>
  }
  %r = tensor.extract %0[%c1] : tensor<8xf32>
  return %r : f32
}
