func.func @first(%a: memref<4xf32>) {
  return
}
func.func @second(%a: memref<4xf32>) {
  return
}
