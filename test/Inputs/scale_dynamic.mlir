// A kernel as cgeist emits C arrays: a dynamically sized memref and an i32
// trip count the caller passes.
func.func @scale(%n: i32, %x: memref<?xf32>) {
  %c2 = arith.constant 2.0 : f32
  %count = arith.index_cast %n : i32 to index
  affine.for %i = 0 to %count {
    %v = affine.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %c2 : f32
    affine.store %w, %x[%i] : memref<?xf32>
  }
  return
}
