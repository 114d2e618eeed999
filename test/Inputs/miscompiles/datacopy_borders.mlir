// Rodinia's nw, small: its first loop writes the borders of a matrix it does
// not read. affine-data-copy-generate wrote the whole 65x65 box back from a
// local buffer it never filled, over the interior (here the recurrence
// rewrote it after; elsewhere it is the kernel's data).
func.func @nw(%ref: memref<65x65xi32>, %F: memref<65x65xi32>) {
  %penalty = arith.constant 10 : i32
  %c0 = arith.constant 0 : i32
  affine.store %c0, %F[0, 0] : memref<65x65xi32>
  affine.for %i = 1 to 65 {
    %ii = arith.index_cast %i : index to i32
    %v = arith.muli %ii, %penalty : i32
    %nv = arith.subi %c0, %v : i32
    affine.store %nv, %F[%i, 0] : memref<65x65xi32>
    affine.store %nv, %F[0, %i] : memref<65x65xi32>
  }
  affine.for %i = 1 to 65 {
    affine.for %j = 1 to 65 {
      %nw = affine.load %F[%i - 1, %j - 1] : memref<65x65xi32>
      %r = affine.load %ref[%i, %j] : memref<65x65xi32>
      %w = affine.load %F[%i, %j - 1] : memref<65x65xi32>
      %n = affine.load %F[%i - 1, %j] : memref<65x65xi32>
      %a = arith.addi %nw, %r : i32
      %b = arith.subi %w, %penalty : i32
      %c = arith.subi %n, %penalty : i32
      %m0 = arith.maxsi %a, %b : i32
      %m1 = arith.maxsi %m0, %c : i32
      affine.store %m1, %F[%i, %j] : memref<65x65xi32>
    }
  }
  return
}
