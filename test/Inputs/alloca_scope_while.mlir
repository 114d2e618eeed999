// ClangIR's lowering of a C `while` loop (clang/test/CIR/Lowering/
// ThroughMLIR/while.c): the loop sits in a memref.alloca_scope.
func.func @count(%n: i32, %out: memref<1xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %a = memref.alloca() : memref<i32>
  memref.store %c0, %a[] : memref<i32>
  memref.alloca_scope {
    scf.while : () -> () {
      %v = memref.load %a[] : memref<i32>
      %c = arith.cmpi slt, %v, %n : i32
      scf.condition(%c)
    } do {
      %v = memref.load %a[] : memref<i32>
      %w = arith.addi %v, %c1 : i32
      memref.store %w, %a[] : memref<i32>
      scf.yield
    }
  }
  %r = memref.load %a[] : memref<i32>
  memref.store %r, %out[%i0] : memref<1xi32>
  return
}
