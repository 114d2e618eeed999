// The payload next to a module of its own holding the transform script, as
// upstream's integration tests (mmt4d.mlir, test-conv-1d-call.mlir) write it.
func.func @main(%A: memref<16xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%A : memref<16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg1: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
