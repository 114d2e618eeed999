// Reduced from buddy-mlir's examples/BuddyNext: the kernel times itself with
// the runner utilities' rtclock() and prints the elapsed time. The output
// check must compare what it prints (here, nothing else reaches the caller)
// without taking the time for a wrong or undefined result. The loop is long
// enough (a MiB) for the elapsed time to differ from run to run.
func.func private @rtclock() -> f64
func.func @kernel(%a : memref<262144xf32>) {
  %t0 = call @rtclock() : () -> f64
  %c0 = arith.constant 0 : index
  %n = arith.constant 262144 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<262144xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %a[%i] : memref<262144xf32>
  }
  %t1 = call @rtclock() : () -> f64
  %d = arith.subf %t1, %t0 : f64
  vector.print %d : f64
  return
}
