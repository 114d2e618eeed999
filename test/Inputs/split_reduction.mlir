// Schedule that splits every reduction into 4 partial sums (reassociation).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %init, %other, %split, %combine = transform.structured.split_reduction %g
        { split_factor = 4, insert_split_dimension = 0 }
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
