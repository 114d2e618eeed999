// After IREE's tests/e2e/linalg/small_float_arith.mlir: a truncation to an 8-bit
// float, which MLIR 19 cannot lower to LLVM.
func.func @t(%a: memref<2xf32>, %b: memref<2xi8>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<2xf32>
  %t = arith.truncf %x : f32 to f8E5M2FNUZ
  %i = arith.bitcast %t : f8E5M2FNUZ to i8
  memref.store %i, %b[%c0] : memref<2xi8>
  return
}
