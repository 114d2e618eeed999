// RUN: %mqss features %s --json --target=x86-avx2 | FileCheck %s --check-prefix=STRUCT
// RUN: %mqss features %s --json --target=x86-avx2 --actions=tensor.bufferize,linalg.to-affine | FileCheck %s --check-prefix=CONTEXT

// Structural and statistical groups on a matmul with an elementwise epilogue.
// STRUCT:      "features": {
// STRUCT:        "dialect_linalg": 0.{{[1-9]}}
// STRUCT:        "divisible_32": 1,
// STRUCT:        "divisible_8": 1,
// STRUCT:        "has_dynamic_shapes": 0,
// STRUCT:        "has_tensors": 1,
// STRUCT:        "op_linalg_generic": 0.{{[0-9]+}}
// STRUCT:        "op_linalg_matmul": 0.{{[0-9]+}}
// STRUCT:        "share_contraction": 0.5,
// STRUCT:        "share_elementwise": 0.5,
// STRUCT:        "stage_linalg": 0,
// STRUCT:        "stage_tensor": 1,
// STRUCT:        "target_avx2": 1,
// STRUCT:        "target_avx512": 0,
// STRUCT:      "spec_hash": "0x{{[0-9a-f]+}}",
// STRUCT-NEXT: "stage": "tensor",

// Contextual group after two actions: loops stage, history shares.
// CONTEXT: "hist_bufferize": 0.5,
// CONTEXT: "hist_lower": 0.5,
// CONTEXT: "last_lower": 1,
// CONTEXT: "max_affine_depth": 0.375,
// CONTEXT: "op_affine_for": 0.{{[0-9]+}}
// CONTEXT: "stage_loops": 1,
// CONTEXT: "step_index": 0.125,
// CONTEXT: "stage": "loops",

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @mm_relu(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
