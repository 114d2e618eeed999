// A matmul vectorized whole (MLIR's transform tutorial): lowering the
// vector<64x128x32xf32> ops unrolls them into hundreds of MB of IR.
#map = affine_map<(d0, d1) -> (d0, 0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1, d0)>
func.func @vectorize_matmul(%arg0: tensor<64x32xf32>, %arg1: tensor<32x128xf32>, %arg2: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = vector.transfer_read %arg0[%c0, %c0], %cst {in_bounds = [true, true, true], permutation_map = #map} : tensor<64x32xf32>, vector<64x128x32xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %1 = vector.transfer_read %arg1[%c0, %c0], %cst_0 {in_bounds = [true, true, true], permutation_map = #map1} : tensor<32x128xf32>, vector<64x128x32xf32>
  %cst_1 = arith.constant 0.000000e+00 : f32
  %2 = vector.transfer_read %arg2[%c0, %c0], %cst_1 {in_bounds = [true, true]} : tensor<64x128xf32>, vector<64x128xf32>
  %3 = arith.mulf %0, %1 : vector<64x128x32xf32>
  %4 = vector.multi_reduction <add>, %3, %2 [2] : vector<64x128x32xf32> to vector<64x128xf32>
  %c0_2 = arith.constant 0 : index
  %5 = vector.transfer_write %4, %arg2[%c0_2, %c0_2] {in_bounds = [true, true]} : vector<64x128xf32>, tensor<64x128xf32>
  return %5 : tensor<64x128xf32>
}
