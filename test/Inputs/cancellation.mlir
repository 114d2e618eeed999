// A sum whose value depends on the order of additions: terms of +-1e4 cancel
// pairwise only when added in sequence, so any pipeline that reassociates the
// reduction (a split reduction, partial sums) computes something else.
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @cancel(%x: tensor<1024xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1.0e4 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction"]}
      ins(%x : tensor<1024xf32>) outs(%init : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %i = linalg.index 0 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %r = arith.remui %i, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    %nbig = arith.negf %big : f32
    %b = arith.select %even, %big, %nbig : f32
    %t = arith.addf %b, %v : f32
    %n = arith.addf %acc, %t : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %sum : tensor<f32>
}
