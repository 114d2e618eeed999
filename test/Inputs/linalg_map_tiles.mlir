// IREE-style tiles of a linalg.map: MLIR 19's linalg-generalize-named-ops leaves
// linalg.map as it is, and the policy chose the generalize actions until it ran
// out of steps.
func.func @tiled_relu(%x: tensor<2048x1024xf32>) -> tensor<2048x1024xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %r = scf.for %i = %c0 to %c128 step %c16 iter_args(%acc = %e) -> (tensor<2048x1024xf32>) {
    %s = tensor.extract_slice %x[%i, 0] [16, 1024] [1, 1] : tensor<2048x1024xf32> to tensor<16x1024xf32>
    %d = tensor.extract_slice %acc[%i, 0] [16, 1024] [1, 1] : tensor<2048x1024xf32> to tensor<16x1024xf32>
    %m = linalg.map ins(%s : tensor<16x1024xf32>) outs(%d : tensor<16x1024xf32>)
      (%a: f32) {
        %y = arith.maximumf %a, %zero : f32
        linalg.yield %y : f32
      }
    %ins = tensor.insert_slice %m into %acc[%i, 0] [16, 1024] [1, 1] : tensor<16x1024xf32> into tensor<2048x1024xf32>
    scf.yield %ins : tensor<2048x1024xf32>
  }
  return %r : tensor<2048x1024xf32>
}
