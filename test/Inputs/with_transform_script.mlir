// A payload function next to the module's own transform script, as upstream
// tests and users embed them. The script's matcher has no results and its
// helper sequence is private and unused by the payload: a module-level
// canonicalize or symbol-dce would erase both.
module attributes {transform.with_named_sequence} {
  func.func @relu(%x: memref<256xf32>, %y: memref<256xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                    iterator_types = ["parallel"]}
        ins(%x : memref<256xf32>) outs(%y : memref<256xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.maximumf %a, %zero : f32
      linalg.yield %m : f32
    }
    return
  }

  module @schedule attributes {transform.with_named_sequence} {
    transform.named_sequence @match_generic(%op: !transform.any_op {transform.readonly})
        -> !transform.any_op {
      transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
      transform.yield %op : !transform.any_op
    }
    transform.named_sequence private @unused_helper(%op: !transform.any_op {transform.readonly}) {
      transform.yield
    }
  }
}
