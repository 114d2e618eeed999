// In the style of upstream MLIR's Math/CPU integration tests: a test entry
// whose result LLVM folds to a constant (ctlz of a constant zero is 32).
func.func @ctlz_of_zero() -> i32 {
  %zero = arith.constant 0 : i32
  %count = math.ctlz %zero : i32
  return %count : i32
}
