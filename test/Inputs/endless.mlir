// Never terminates: the loop's exit condition can never become true.
func.func @spin(%a: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.while (%i = %one) : (i64) -> i64 {
    %go = arith.cmpi ne, %i, %zero : i64
    scf.condition(%go) %i : i64
  } do {
  ^bb0(%i: i64):
    memref.store %i, %a[%c0] : memref<4xi64>
    %n = arith.ori %i, %one : i64
    scf.yield %n : i64
  }
  return
}
