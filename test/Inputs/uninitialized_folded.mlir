// Upstream's affine LICM test @hoist_pure_from_zero_trip_count_loop (found by sweep 7): it returns
// memory it never wrote. LLVM folds that read of fresh malloc'd memory to a constant, so only a
// reference whose malloc LLVM does not know reads the fill bytes, and tells it undefined.
func.func @hoist_pure_from_zero_trip_count_loop(%x: i32, %y: i32) -> i32 {
  %alloc = memref.alloc() : memref<1xi32>
  affine.for %i = 0 to 0 {
    %z = arith.addi %x, %y : i32
    affine.store %z, %alloc[0] : memref<1xi32>
  }
  %r = affine.load %alloc[0] : memref<1xi32>
  return %r : i32
}
