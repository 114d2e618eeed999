// From upstream MLIR's mlir-cpu-runner/async.mlir, reduced: the async
// dialect needs MLIR's async runtime, which mqss does not load.
func.func @main(%a: memref<8xf32>) {
  %token = async.execute {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[%c0] : memref<8xf32>
    async.yield
  }
  async.await %token : !async.token
  return
}
