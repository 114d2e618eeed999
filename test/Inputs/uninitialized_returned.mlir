// Reduced from CIRCT's SCFToCalyx convert_memory.mlir: returns an element of
// a memref.alloc it never wrote. LLVM folds the candidate's load to 0, the
// same as the reference's run with 0x00 fills.
func.func @main(%i : index) -> i32 {
  %0 = memref.alloc() : memref<64xi32>
  %1 = memref.load %0[%i] : memref<64xi32>
  return %1 : i32
}
