// A tensor function beside one that returns nothing (a C frontend's helper)
// and one returning a loop's result: the tile-and-fuse schedules tile the
// linalg op producing @main's result and leave the others alone (they
// failed on the void return before: no producer for its operand 0).
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %e = tensor.empty() : tensor<64x64xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
  func.func @helper(%m: memref<8xf32>) {
    return
  }
  func.func @looped(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %x) -> (tensor<64x64xf32>) {
      %e = tensor.empty() : tensor<64x64xf32>
      %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
          ins(%t : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
      ^bb0(%a: f32, %o: f32):
        %s = arith.addf %a, %a : f32
        linalg.yield %s : f32
      } -> tensor<64x64xf32>
      scf.yield %g : tensor<64x64xf32>
    }
    return %r : tensor<64x64xf32>
  }
}
