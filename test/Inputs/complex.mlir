// Complex numbers as other frontends pass them (torch-mlir's complex
// tensors, upstream's complex tests): memrefs and tensors of complex<f32>
// and complex<f64>, and a complex scalar, in and out.
func.func @cplx(%a: tensor<32x16xcomplex<f32>>, %b: tensor<16x32xcomplex<f32>>,
                %c: tensor<32x32xcomplex<f32>>, %w: memref<8xcomplex<f64>>,
                %s: complex<f64>) -> (tensor<32x32xcomplex<f32>>, complex<f64>) {
  %m = linalg.matmul ins(%a, %b : tensor<32x16xcomplex<f32>>, tensor<16x32xcomplex<f32>>)
                     outs(%c : tensor<32x32xcomplex<f32>>) -> tensor<32x32xcomplex<f32>>
  affine.for %i = 0 to 8 {
    %x = affine.load %w[%i] : memref<8xcomplex<f64>>
    %y = complex.mul %x, %s : complex<f64>
    affine.store %y, %w[%i] : memref<8xcomplex<f64>>
  }
  %r = complex.exp %s : complex<f64>
  return %m, %r : tensor<32x32xcomplex<f32>>, complex<f64>
}
