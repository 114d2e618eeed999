// Stores far outside its buffer: the generated code segfaults.
func.func @oob(%a: memref<16xf32>) {
  %big = arith.constant 1099511627776 : index
  %v = arith.constant 1.0 : f32
  %m = memref.reinterpret_cast %a to offset: [0], sizes: [1099511627777], strides: [1] : memref<16xf32> to memref<1099511627777xf32>
  memref.store %v, %m[%big] : memref<1099511627777xf32>
  return
}
