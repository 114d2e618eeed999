// A caller and a callee that pass tensors across the call: bufferizing
// one of them alone is refused (a bodiless function returning a tensor),
// so each one's scratch module must carry the other's body.
func.func @scale(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %two = arith.constant 2.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %s = func.call @scale(%a) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%s, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
