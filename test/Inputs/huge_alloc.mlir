// Allocates far more than the address-space limit allows, and uses it.
func.func @huge(%idx: memref<1xi64>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 100000000000 : index
  %buf = memref.alloc(%n) : memref<?xf32>
  %k64 = memref.load %idx[%c0] : memref<1xi64>
  %k = arith.index_cast %k64 : i64 to index
  %stride = arith.constant 1000000000 : index
  %far = arith.muli %k, %stride : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %buf[%far] : memref<?xf32>
  %v = memref.load %buf[%k] : memref<?xf32>
  memref.store %v, %out[%c0] : memref<1xf32>
  memref.dealloc %buf : memref<?xf32>
  return
}
