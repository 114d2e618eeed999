// Stores through a null pointer: the generated code segfaults, under any
// pipeline (the naive reference's bounds checks see only memref accesses).
func.func @crash(%a: memref<16xf32>) {
  %null = llvm.mlir.zero : !llvm.ptr
  %v = arith.constant 1.0 : f32
  llvm.store %v, %null : f32, !llvm.ptr
  return
}
