// An entry taking a vector, as MLIR's vector tests write helpers.
func.func @scale(%v: vector<5x6xf32>, %out: memref<5x6xf32>) {
  %c0 = arith.constant 0 : index
  %two = arith.constant dense<2.0> : vector<5x6xf32>
  %r = arith.mulf %v, %two : vector<5x6xf32>
  vector.transfer_write %r, %out[%c0, %c0] : vector<5x6xf32>, memref<5x6xf32>
  return
}
