func.func @cplx(%a: memref<4xcomplex<i32>>) {
  return
}
