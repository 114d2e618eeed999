// Calls a function it only declares, which no library defines; declares two
// more that nothing calls, which do not matter.
func.func private @ext_scale(f64) -> f64
func.func private @never_called(i64, f64) -> i32
func.func private @never_called_ciface(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func @k(%x: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<8xf64>
  %w = func.call @ext_scale(%v) : (f64) -> f64
  memref.store %w, %x[%c0] : memref<8xf64>
  return
}
