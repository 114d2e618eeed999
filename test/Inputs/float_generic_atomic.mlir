// A float memref.generic_atomic_rmw (a histogram's update, as written for
// scf.parallel): MLIR 19 lowers it to an llvm.cmpxchg on f32, which the LLVM
// dialect rejects.
func.func @g(%h: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %z = memref.generic_atomic_rmw %h[%c0] : memref<16xf32> {
  ^bb0(%cur: f32):
    %d = arith.addf %cur, %one : f32
    memref.atomic_yield %d : f32
  }
  return
}
