// Declarations nothing calls, as frontends leave them (torch-mlir's private
// helpers, C headers' prototypes): one with a tensor signature, which
// one-shot bufferization across function boundaries refuses, and one
// between two kernels that each function's scratch module leaves out.
func.func private @unused_tensor_helper(tensor<16xf32>) -> tensor<16xf32>
func.func @scale(%x: tensor<16xf32>) -> tensor<16xf32> {
  %init = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %in, %two : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}
func.func private @unused_prototype(memref<4xf32>)
func.func @square(%x: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %v = affine.load %x[%i] : memref<16xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %x[%i] : memref<16xf32>
  }
  return
}
