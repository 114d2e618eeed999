#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%arg0: tensor<16x64xf16>) -> tensor<16x64xf16> {
  %cst = arith.constant 5.000000e-01 : f16
  %cst_0 = arith.constant 1.000000e+00 : f16
  %cst_1 = arith.constant 7.978520e-01 : f16
  %cst_2 = arith.constant 4.470830e-02 : f16
  %0 = tensor.empty() : tensor<16x64xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x64xf16>) outs(%0 : tensor<16x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %2 = arith.mulf %in, %in : f16
    %3 = arith.mulf %2, %in : f16
    %4 = arith.mulf %3, %cst_2 : f16
    %5 = arith.addf %in, %4 : f16
    %6 = arith.mulf %5, %cst_1 : f16
    %7 = math.tanh %6 : f16
    %8 = arith.addf %7, %cst_0 : f16
    %9 = arith.mulf %in, %8 : f16
    %10 = arith.mulf %9, %cst : f16
    linalg.yield %10 : f16
  } -> tensor<16x64xf16>
  return %1 : tensor<16x64xf16>
}
