// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// linalg-specialize-generic-ops drops the negation in the body and makes a plain linalg.matmul.
#mA = affine_map<(i, j, k) -> (i, k)>
#mB = affine_map<(i, j, k) -> (k, j)>
#mC = affine_map<(i, j, k) -> (i, j)>
func.func @mm_neg(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %n = arith.negf %m : f32
    %s = arith.addf %acc, %n : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
