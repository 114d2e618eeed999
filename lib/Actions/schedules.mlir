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
  // 2-D elementwise ops: 4x64 vector tiles
  transform.named_sequence @elementwise_tile_vec_4x64(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["linalg.generic", "linalg.fill", "linalg.copy", "linalg.transpose"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %tiled, %loops:2 = transform.structured.tile_using_for %op tile_sizes [4, 64]
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
  // The linalg op producing a function's (first) returned value; functions
  // returning nothing, or a value no linalg op produces (a block argument,
  // an scf.for result), do not match and are left alone.
  transform.named_sequence @match_returned_linalg(%ret: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %ret ["func.return"] : !transform.any_op
    %producer = transform.get_producer_of_operand %ret[0]
        : (!transform.any_op) -> !transform.any_op
    transform.match.structured %producer : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.match.structured.yield
    }
    transform.yield %producer : !transform.any_op
  }
  transform.named_sequence @fuse_into_32x32(%producer: !transform.any_op {transform.consumed}) {
    %fused, %loops:2 = transform.structured.fuse %producer {tile_sizes = [32, 32], tile_interchange = [0, 1]}
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @fuse_into_8x64(%producer: !transform.any_op {transform.consumed}) {
    %fused, %loops:2 = transform.structured.fuse %producer {tile_sizes = [8, 64], tile_interchange = [0, 1]}
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  // tensors: tile the op producing the function's result by 32x32 and fuse its producers into the tile loops
  transform.named_sequence @tile_fuse_32x32(%root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root @match_returned_linalg -> @fuse_into_32x32
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  // tensors: tile the op producing the function's result by 8x64 and fuse its producers into the tile loops
  transform.named_sequence @tile_fuse_8x64(%root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root @match_returned_linalg -> @fuse_into_8x64
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  // tensors: pack matmul operands into 32x32 blocks (linalg-block-pack-matmul),
  // then lower the packs to pad + reshape + transpose so they bufferize
  transform.named_sequence @block_pack_matmul_32(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %packed = transform.apply_registered_pass "linalg-block-pack-matmul" to %funcs {options = "block-factors=32,32,32"} : (!transform.any_op) -> !transform.any_op
    %packs = transform.structured.match ops{["tensor.pack"]} in %root : (!transform.any_op) -> !transform.op<"tensor.pack">
    transform.foreach %packs : !transform.op<"tensor.pack"> {
    ^bb0(%p: !transform.op<"tensor.pack">):
      %pad, %expand, %transpose = transform.structured.lower_pack %p : (!transform.op<"tensor.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    }
    %unpacks = transform.structured.match ops{["tensor.unpack"]} in %root : (!transform.any_op) -> !transform.op<"tensor.unpack">
    transform.foreach %unpacks : !transform.op<"tensor.unpack"> {
    ^bb0(%u: !transform.op<"tensor.unpack">):
      %e, %t, %c, %s = transform.structured.lower_unpack %u : (!transform.op<"tensor.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
    }
    transform.include @generalize_identity_transposes failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
  // tensors: pack matmul operands into 16x16 blocks (linalg-block-pack-matmul),
  // then lower the packs to pad + reshape + transpose so they bufferize
  transform.named_sequence @block_pack_matmul_16(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %packed = transform.apply_registered_pass "linalg-block-pack-matmul" to %funcs {options = "block-factors=16,16,16"} : (!transform.any_op) -> !transform.any_op
    %packs = transform.structured.match ops{["tensor.pack"]} in %root : (!transform.any_op) -> !transform.op<"tensor.pack">
    transform.foreach %packs : !transform.op<"tensor.pack"> {
    ^bb0(%p: !transform.op<"tensor.pack">):
      %pad, %expand, %transpose = transform.structured.lower_pack %p : (!transform.op<"tensor.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    }
    %unpacks = transform.structured.match ops{["tensor.unpack"]} in %root : (!transform.any_op) -> !transform.op<"tensor.unpack">
    transform.foreach %unpacks : !transform.op<"tensor.unpack"> {
    ^bb0(%u: !transform.op<"tensor.unpack">):
      %e, %t, %c, %s = transform.structured.lower_unpack %u : (!transform.op<"tensor.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
    }
    transform.include @generalize_identity_transposes failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }

  // Not an action: tensor.pack and tensor.unpack (data-tiling frontends emit
  // them around linalg.mmt4d), which MLIR 19 cannot bufferize, as pad +
  // expand_shape + transpose and transpose + collapse_shape + extract_slice.
  // A pack this cannot lower (dynamic inner tiles) is left as it is: the
  // bufferization then says which op it could not handle. Selections and
  // baselines begin with it on modules that hold a pack or an unpack.
  transform.named_sequence @lower_pack_unpack(%root: !transform.any_op {transform.readonly}) {
    %packs = transform.structured.match ops{["tensor.pack"]} in %root : (!transform.any_op) -> !transform.op<"tensor.pack">
    transform.foreach %packs : !transform.op<"tensor.pack"> {
    ^bb0(%pack: !transform.op<"tensor.pack">):
      transform.sequence %pack : !transform.op<"tensor.pack"> failures(suppress) {
      ^bb1(%p: !transform.op<"tensor.pack">):
        %pad, %expand, %transpose = transform.structured.lower_pack %p : (!transform.op<"tensor.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
      }
    }
    %unpacks = transform.structured.match ops{["tensor.unpack"]} in %root : (!transform.any_op) -> !transform.op<"tensor.unpack">
    transform.foreach %unpacks : !transform.op<"tensor.unpack"> {
    ^bb0(%unpack: !transform.op<"tensor.unpack">):
      transform.sequence %unpack : !transform.op<"tensor.unpack"> failures(suppress) {
      ^bb1(%u: !transform.op<"tensor.unpack">):
        %e, %t, %c, %s = transform.structured.lower_unpack %u : (!transform.op<"tensor.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
      }
    }
    transform.include @generalize_identity_transposes failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }

  // Not an action: linalg.transpose ops whose permutation is the identity
  // (what lower_pack makes of a pack whose tiles are already in order) as
  // linalg.generic copies. MLIR 19's canonicalizer erases an identity
  // transpose on buffers as if it were a no-op, losing the copy: the result
  // was left unwritten. Selections begin with it on modules that hold one;
  // the pack lowerings below end with it.
  transform.named_sequence @generalize_identity_transposes(%root: !transform.any_op {transform.readonly}) {
    %t1 = transform.structured.match ops{["linalg.transpose"]} attributes{permutation = array<i64: 0>} in %root
        : (!transform.any_op) -> !transform.any_op
    %g1 = transform.structured.generalize %t1 : (!transform.any_op) -> !transform.any_op
    %t2 = transform.structured.match ops{["linalg.transpose"]} attributes{permutation = array<i64: 0, 1>} in %root
        : (!transform.any_op) -> !transform.any_op
    %g2 = transform.structured.generalize %t2 : (!transform.any_op) -> !transform.any_op
    %t3 = transform.structured.match ops{["linalg.transpose"]} attributes{permutation = array<i64: 0, 1, 2>} in %root
        : (!transform.any_op) -> !transform.any_op
    %g3 = transform.structured.generalize %t3 : (!transform.any_op) -> !transform.any_op
    %t4 = transform.structured.match ops{["linalg.transpose"]} attributes{permutation = array<i64: 0, 1, 2, 3>} in %root
        : (!transform.any_op) -> !transform.any_op
    %g4 = transform.structured.generalize %t4 : (!transform.any_op) -> !transform.any_op
    %t5 = transform.structured.match ops{["linalg.transpose"]} attributes{permutation = array<i64: 0, 1, 2, 3, 4>} in %root
        : (!transform.any_op) -> !transform.any_op
    %g5 = transform.structured.generalize %t5 : (!transform.any_op) -> !transform.any_op
    %t6 = transform.structured.match ops{["linalg.transpose"]} attributes{permutation = array<i64: 0, 1, 2, 3, 4, 5>} in %root
        : (!transform.any_op) -> !transform.any_op
    %g6 = transform.structured.generalize %t6 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  // Not an action: linalg.softmax (torch's softmax in linalg-on-tensors
  // output), which no lowering to loops handles, as the linalg.generic ops of
  // its definition (max, sub and exp, sum, div). Selections and baselines
  // begin with it on modules that hold a softmax.
  transform.named_sequence @decompose_softmax(%root: !transform.any_op {transform.readonly}) {
    %softmaxes = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %softmaxes : !transform.any_op {
    ^bb0(%softmax: !transform.any_op):
      // On tensors only (one result): the decomposition makes tensor ops.
      transform.sequence %softmax : !transform.any_op failures(suppress) {
      ^bb1(%s: !transform.any_op):
        %result = transform.get_result %s[0] : (!transform.any_op) -> !transform.any_value
        %decomposed = transform.structured.decompose_interface %s
            : (!transform.any_op) -> !transform.any_op
      }
    }
    transform.yield
  }

  // Not an action: tensor.concat (torch.cat), which MLIR 19 cannot bufferize,
  // as tensor.empty and one tensor.insert_slice per operand. Selections and
  // baselines begin with it on modules that hold a concat.
  transform.named_sequence @decompose_concat(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.tensor.decompose_concat
    } : !transform.any_op
    transform.yield
  }
}
