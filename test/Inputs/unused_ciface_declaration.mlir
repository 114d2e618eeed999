// Declarations nothing calls, one marked llvm.emit_c_interface: its C wrapper
// called _mlir_ciface_unused_runtime_fn, which nothing defines, and the JIT
// could not link the kernel (found by a sweep of other tools' IR).
func.func @kernel(%A: memref<8xf64>) {
  %c1 = arith.constant 1.0 : f64
  affine.for %i = 0 to 8 {
    %v = affine.load %A[%i] : memref<8xf64>
    %w = arith.addf %v, %c1 : f64
    affine.store %w, %A[%i] : memref<8xf64>
  }
  return
}
func.func private @unused_runtime_fn(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @another_unused(i64, f64) -> i32
