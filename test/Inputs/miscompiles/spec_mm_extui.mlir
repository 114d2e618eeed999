// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// linalg-specialize-generic-ops turns a zero-extending i8 product into a sign-extending linalg.matmul.
#mA = affine_map<(i, j, k) -> (i, k)>
#mB = affine_map<(i, j, k) -> (k, j)>
#mC = affine_map<(i, j, k) -> (i, j)>
func.func @qmm(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>, %c: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %r = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xi8>, tensor<8x4xi8>) outs(%c : tensor<4x4xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extui %y : i8 to i32
    %m = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<4x4xi32>
  return %r : tensor<4x4xi32>
}
