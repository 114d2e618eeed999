// Host code with an op nothing lowers for LLVM (EmitC's, as C-emitting
// flows write it): only the translation to LLVM IR finds out. Its error must
// name the op and where it is.
func.func @stage(%a: memref<64xf32>) {
  emitc.call_opaque "flush_cache"() : () -> ()
  return
}
