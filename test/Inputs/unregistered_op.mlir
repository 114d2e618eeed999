// An op of a dialect MLIR does not know, as upstream tests write them.
func.func @f(%x: memref<64xf32>) {
  "test.marker"() : () -> ()
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%x : memref<64xf32>) {
  ^bb0(%o: f32):
    %m = arith.addf %o, %o : f32
    linalg.yield %m : f32
  }
  return
}
