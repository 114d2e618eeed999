// The payload of MLIR's transform tutorial, chapter H (mlir/test/Examples/transform/ChH).
// default's plan leaves loops.tile-32 out after linalg.to-affine (a dependence forbids it),
// which passes its check again after loops.vectorize-8.
!tinput = tensor<1x10x12x16xf32>
!tfilter = tensor<16x3x3x16xf32>
!tbias = tensor<16xf32>
!toutput = tensor<1x8x10x16xf32>

func.func @conv(
    %input: !tinput {bufferization.writable = false,
                     bufferization.access = "read",
                     bufferization.buffer_layout =
                         affine_map<(d0,d1,d2,d3)->(d0,d1,d2,d3)>},
    %filter: !tfilter {bufferization.writable = false,
                      bufferization.access = "read",
                      bufferization.buffer_layout =
                          affine_map<(d0,d1,d2,d3)->(d0,d1,d2,d3)>},
    %bias: !tbias {bufferization.writable = false,
                   bufferization.access = "read",
                   bufferization.buffer_layout = affine_map<(d0)->(d0)>},
    %output: !toutput {bufferization.writable = true,
                       bufferization.buffer_layout =
                           affine_map<(d0,d1,d2,d3)->(d0,d1,d2,d3)>,
                       bufferization.access = "write"}) -> !toutput
  attributes { llvm.emit_c_interface }
{
  %bias_init = tensor.empty() : !toutput
  %biased = linalg.broadcast ins(%bias : !tbias)
    outs(%bias_init : !toutput) dimensions = [0, 1, 2]
  %convolved = linalg.generic {
    iterator_types = ["parallel", "parallel", "parallel", "parallel",
                      "reduction", "reduction", "reduction"],
    indexing_maps = [
      affine_map<(n, y, x, c, rz, ry, rx) -> (rx, rz, ry, c)>,
      affine_map<(n, y, x, c, rz, ry, rx) -> (n, y+rz, x+ry, rx)>,
      affine_map<(n, y, x, c, rz, ry, rx) -> (n, y, x, c)>
    ]
  } ins(%filter, %input: !tfilter, !tinput) outs(%biased : !toutput) {
  ^bb0(%in: f32, %f: f32, %b: f32):
    %m1 = arith.mulf %in, %f  {fastmath = #arith.fastmath<fast>} : f32
    %0 = arith.addf %b, %m1  {fastmath = #arith.fastmath<fast>} : f32
    linalg.yield %0 : f32
  } -> !toutput
  %c0 = arith.constant 0.0 : f32
  %relued = linalg.generic {
    iterator_types = ["parallel", "parallel", "parallel", "parallel"],
    indexing_maps = [
      affine_map<(d0, d1, d2, d3) -> ()>,
      affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
      affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
    ]
  } ins(%c0, %convolved : f32, !toutput)
    outs(%output : !toutput) {
  ^bb0(%cst: f32, %in: f32, %out: f32):
    %0 = llvm.intr.maxnum(%cst, %in) : (f32, f32) -> f32
    linalg.yield %0 : f32
  } -> !toutput
  return %relued : !toutput
}
