// C `static` state as cgeist emits it: a mutable memref.global the kernel
// reads and updates at every call, so its output depends on the call count.
memref.global "private" @calls : memref<i32> = dense<0>
func.func @tick(%data: memref<4xi32>) {
  %c1 = arith.constant 1 : i32
  %counter = memref.get_global @calls : memref<i32>
  %n = memref.load %counter[] : memref<i32>
  %next = arith.addi %n, %c1 : i32
  memref.store %next, %counter[] : memref<i32>
  affine.for %i = 0 to 4 {
    %v = affine.load %data[%i] : memref<4xi32>
    %w = arith.addi %v, %next : i32
    affine.store %w, %data[%i] : memref<4xi32>
  }
  return
}
