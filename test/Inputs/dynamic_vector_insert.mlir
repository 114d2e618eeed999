// A kernel no pipeline lowers in MLIR 19: vector.insert at a dynamic
// position into a 2-D vector has no conversion to LLVM.
func.func @main(%a: memref<2x4xf32>, %b: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.load %b[%c0] : memref<1xi32>
  %k = arith.index_cast %n : i32 to index
  %j = arith.andi %k, %c1 : index
  %f = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0, %c0], %f : memref<2x4xf32>, vector<2x4xf32>
  %r = arith.constant dense<1.0> : vector<4xf32>
  %w = vector.insert %r, %v[%j] : vector<4xf32> into vector<2x4xf32>
  vector.transfer_write %w, %a[%c0, %c0] : vector<2x4xf32>, memref<2x4xf32>
  return
}
