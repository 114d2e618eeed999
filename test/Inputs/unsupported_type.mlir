func.func @cplx(%a: memref<4xcomplex<f32>>) {
  return
}
