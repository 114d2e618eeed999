// A padded tensor inserted with stride 2 into a fill: MLIR 19's canonicalizer
// (FoldInsertPadIntoFill) inserted the unpadded source at offset + low, not
// offset + low * stride (found by a random linalg program generator).
func.func @main(%x: tensor<3xf32>) -> tensor<12xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<12xf32>) -> tensor<12xf32>
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c0 : f32
  } : tensor<3xf32> to tensor<5xf32>
  %r = tensor.insert_slice %p into %f[1] [5] [2] : tensor<5xf32> into tensor<12xf32>
  return %r : tensor<12xf32>
}
