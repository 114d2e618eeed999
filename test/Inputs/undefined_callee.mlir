// Calls a function it only declares, which no library defines.
func.func private @ext_scale(f64) -> f64
func.func @k(%x: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<8xf64>
  %w = func.call @ext_scale(%v) : (f64) -> f64
  memref.store %w, %x[%c0] : memref<8xf64>
  return
}
