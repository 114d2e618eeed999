// Host code that allocates on a GPU (as GPU-targeting frontends emit it):
// nothing lowers gpu.alloc for a CPU, so only the translation to LLVM IR
// finds out. Its error must name the op and where it is.
func.func @stage(%a: memref<64xf32>) {
  %b = gpu.alloc () : memref<64xf32>
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  gpu.dealloc %b : memref<64xf32>
  return
}
