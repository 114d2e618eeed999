#map = affine_map<(d0, d1, d2, d3) -> (d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 1882 : i32}} {
  func.func @main(%arg0: tensor<1x16x16x4xf32>) -> tensor<1x16x16x8xf32> {
    %cst = arith.constant dense<3.125000e-02> : tensor<8x3x3x4xf32>
    %cst_0 = arith.constant dense<5.000000e-01> : tensor<8xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_1 : f32
    } : tensor<1x16x16x4xf32> to tensor<1x18x18x4xf32>
    %0 = tensor.empty() : tensor<1x16x16x8xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_0 : tensor<8xf32>) outs(%0 : tensor<1x16x16x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x16x16x8xf32>
    %2 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %cst : tensor<1x18x18x4xf32>, tensor<8x3x3x4xf32>) outs(%1 : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
    %3 = tensor.empty() : tensor<1x16x16x8xf32>
    %4 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x16x16x8xf32>) outs(%3 : tensor<1x16x16x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %cst_2 = arith.constant 0.000000e+00 : f32
      %cst_3 = arith.constant 3.40282347E+38 : f32
      %5 = arith.minimumf %in, %cst_3 : f32
      %6 = arith.maximumf %5, %cst_2 : f32
      linalg.yield %6 : f32
    } -> tensor<1x16x16x8xf32>
    return %4 : tensor<1x16x16x8xf32>
  }
}

