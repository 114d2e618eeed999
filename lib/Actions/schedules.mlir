// The schedule library: transform-dialect schedules the action catalog
// refers to by entry point. It is preloaded once
// (transform-preload-library) and never pasted into the user's module; each
// schedule action runs transform-interpreter{entry-point=NAME}.
module attributes {transform.with_named_sequence} {
  // matmul: register tiles of 8x32, one k at a time, as outer products
  transform.named_sequence @matmul_tile_vec_8x32x1(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:3 = transform.structured.tile_using_for %op tile_sizes [8, 32, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // matmul: square 16x16 register tiles as outer products
  transform.named_sequence @matmul_tile_vec_16x16x1(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:3 = transform.structured.tile_using_for %op tile_sizes [16, 16, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // matmul: wide 4x64 register tiles as outer products
  transform.named_sequence @matmul_tile_vec_4x64x1(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:3 = transform.structured.tile_using_for %op tile_sizes [4, 64, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // matmul: 8x16x4 tiles with dot-product contraction lowering
  transform.named_sequence @matmul_tile_vec_8x16x4_dot(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:3 = transform.structured.tile_using_for %op tile_sizes [8, 16, 4]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "dot"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // batch_matmul: per-batch 8x32 register tiles as outer products
  transform.named_sequence @batch_matmul_tile_vec_1x8x32x1(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:4 = transform.structured.tile_using_for %op tile_sizes [1, 8, 32, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // matvec: 8 rows x 32 columns per vector step
  transform.named_sequence @matvec_tile_vec_8x32(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.matvec"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:2 = transform.structured.tile_using_for %op tile_sizes [8, 32]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // 2-D elementwise ops (generic, fill, copy, transpose): 8x32 vector tiles
  transform.named_sequence @elementwise_tile_vec_8x32(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.generic", "linalg.fill", "linalg.copy", "linalg.transpose"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:2 = transform.structured.tile_using_for %op tile_sizes [8, 32]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // 2-D elementwise ops: one row at a time, 64-wide vectors
  transform.named_sequence @elementwise_tile_vec_1x64(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.generic", "linalg.fill", "linalg.copy", "linalg.transpose"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:2 = transform.structured.tile_using_for %op tile_sizes [1, 64]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // tensors: tile the op producing the function's result by 32x32 and fuse its producers into the tile loops
  transform.named_sequence @tile_fuse_32x32(%root: !transform.any_op {transform.readonly}) {
    %returns = transform.structured.match ops{["func.return"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %returns : !transform.any_op {
    ^bb0(%ret: !transform.any_op):
      %producer = transform.get_producer_of_operand %ret[0]
          : (!transform.any_op) -> !transform.any_op
      %fused, %loops:2 = transform.structured.fuse %producer {tile_sizes = [32, 32], tile_interchange = [0, 1]}
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    }
    transform.yield
  }
  // tensors: tile the op producing the function's result by 8x64 and fuse its producers into the tile loops
  transform.named_sequence @tile_fuse_8x64(%root: !transform.any_op {transform.readonly}) {
    %returns = transform.structured.match ops{["func.return"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %returns : !transform.any_op {
    ^bb0(%ret: !transform.any_op):
      %producer = transform.get_producer_of_operand %ret[0]
          : (!transform.any_op) -> !transform.any_op
      %fused, %loops:2 = transform.structured.fuse %producer {tile_sizes = [8, 64], tile_interchange = [0, 1]}
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    }
    transform.yield
  }
}
