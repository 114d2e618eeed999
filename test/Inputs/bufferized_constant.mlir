// Two defined functions, a declaration and a constant that bufferization
// makes a memref.global: --emit=mlir put the global and the declaration
// after the functions, where mlir-opt with the printed pipeline keeps them
// before (from the JAX-lowered programs of intel/mlir-extensions).
func.func private @printMemrefF32(tensor<*xf32>)
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @main() {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %b : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
