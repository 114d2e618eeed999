// Found by a sweep of others' IR (sweep 7): a store of a value computed in an inner loop
// that may run zero times; affine-loop-invariant-code-motion moves it out step by step.
func.func @f(%x: i32, %n: index, %out: memref<10xi32>) {
  %c42 = arith.constant 42 : i32
  affine.for %i = 0 to 10 {
    affine.store %c42, %out[%i] : memref<10xi32>
    affine.for %j = 0 to %n {
      %z = arith.muli %x, %x : i32
      affine.store %z, %out[%i] : memref<10xi32>
    }
  }
  return
}
