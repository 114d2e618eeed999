// Moving 8-bit floats around (loads, constants, selects, bitcasts) lowers in
// MLIR 19; only their arithmetic and conversions do not.
func.func @t(%a: memref<2xf8E5M2>, %b: memref<2xi8>, %p: i1) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<2xf8E5M2>
  %k = arith.constant 1.0 : f8E5M2
  %s = arith.select %p, %x, %k : f8E5M2
  %i = arith.bitcast %s : f8E5M2 to i8
  memref.store %i, %b[%c0] : memref<2xi8>
  return
}
