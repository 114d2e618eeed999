// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// linalg-specialize-generic-ops turns a body yielding its output into linalg.copy of the input.
#id = affine_map<(i, j) -> (i, j)>
func.func @keep(%a: memref<8x8xf32>, %b: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %y : f32
  }
  return
}
