// An scf.for counting in i32 (upstream's for-loop-peeling test): MLIR 19's
// scf-for-loop-peeling builds an index split point into its i32 bounds.
func.func @f(%m: memref<32xi32>) {
  %lb = arith.constant 0 : i32
  %step = arith.constant 4 : i32
  %ub = arith.constant 17 : i32
  %c = arith.constant 1 : i32
  scf.for %iv = %lb to %ub step %step : i32 {
    %i = arith.index_cast %iv : i32 to index
    memref.store %c, %m[%i] : memref<32xi32>
  }
  return
}
