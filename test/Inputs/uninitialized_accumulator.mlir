// A sum into tensor.empty without a linalg.fill, as hand-reduced IR found on
// GitHub writes it: the accumulator starts as whatever the allocation held,
// so the kernel is undefined and its output changes from run to run.
func.func @main(%x: tensor<10xi32>) -> tensor<i32> {
  %acc = tensor.empty() : tensor<i32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%x : tensor<10xi32>) outs(%acc : tensor<i32>) {
  ^bb0(%a: i32, %s: i32):
    %b = arith.addi %s, %a : i32
    linalg.yield %b : i32
  } -> tensor<i32>
  return %sum : tensor<i32>
}
