// Two inputs for mlir-opt --split-input-file, as upstream tests hold them.
func.func @a(%x: memref<64xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%x : memref<64xf32>)
  return
}
// -----
func.func @a(%x: memref<64xf32>) {
  %c = arith.constant 2.0 : f32
  linalg.fill ins(%c : f32) outs(%x : memref<64xf32>)
  return
}
