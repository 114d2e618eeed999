// A generic contraction O += exp(A) * exp(B) next to a plain matmul (which makes
// block packing legal): MLIR 19's linalg-block-pack-matmul packed both and
// padded K with zeros, each padded step adding exp(0) * exp(0) = 1 (found by a
// random linalg program generator).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @main(%A: tensor<5x3xf32>, %B: tensor<3x7xf32>, %O: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %g = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : tensor<5x3xf32>, tensor<3x7xf32>) outs(%O : tensor<5x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %ex = math.exp %x : f32
    %ey = math.exp %y : f32
    %p = arith.mulf %ex, %ey : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  %m = linalg.matmul ins(%A, %B : tensor<5x3xf32>, tensor<3x7xf32>) outs(%g : tensor<5x7xf32>) -> tensor<5x7xf32>
  return %m : tensor<5x7xf32>
}
