// linalg.softmax on buffers: its decomposition makes tensor ops, so it is
// left as it is (and cannot be lowered), but selecting still works.
func.func @softmax(%x: memref<4x16xf32>, %y: memref<4x16xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<4x16xf32>) outs(%y : memref<4x16xf32>)
  return
}
