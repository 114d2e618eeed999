// Returns a stack buffer (through a cast): undefined once @main returns.
func.func @main(%a: memref<16xf32>) -> memref<?xf32> {
  %s = memref.alloca() : memref<16xf32>
  memref.copy %a, %s : memref<16xf32> to memref<16xf32>
  %c = memref.cast %s : memref<16xf32> to memref<?xf32>
  return %c : memref<?xf32>
}
