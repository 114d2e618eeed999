module {
  func.func @poly(%x: f64, %n: i32) -> f64 attributes {llvm.linkage = #llvm.linkage<external>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f64
    %zero = arith.constant 0.0 : f64
    %ni = arith.index_cast %n : i32 to index
    %r:2 = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %zero, %pw = %one) -> (f64, f64) {
      %a = arith.addf %acc, %pw : f64
      %p = arith.mulf %pw, %x : f64
      scf.yield %a, %p : f64, f64
    }
    return %r#0 : f64
  }
}
