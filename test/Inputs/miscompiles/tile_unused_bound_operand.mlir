// An inner bound naming %i without using it: MLIR 19's affine-loop-tile
// makes the tiled bound use %i before its definition ("operand #0 does not
// dominate this use").
func.func @main(%A: memref<8xf32>, %B: memref<8xf32>) {
  affine.for %i = 0 to 7 {
    affine.for %j = 0 to affine_map<(d0) -> (8)>(%i) {
      %v = affine.load %B[%i] : memref<8xf32>
      affine.store %v, %A[%j] : memref<8xf32>
    }
  }
  return
}
