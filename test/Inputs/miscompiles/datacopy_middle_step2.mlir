// Found by a sweep of HLS-style kernels (MLIR 19, upstream bug): affine-data-copy-generate
// sizes a tiled nest's buffer without the point loop's step 2 (a middle loop here): its copy
// loops run one row past the 64x64 buffer, corrupting the heap.
#lb = affine_map<(d0) -> (d0)>
#ub = affine_map<(d0) -> (d0 + 16)>
module {
  func.func @forward(%A: memref<64x64xf32>, %B: memref<64x64xf32>) attributes {top_func} {
    %c = arith.constant 0.5 : f32
    affine.for %i0 = 0 to 64 step 16 {
      affine.for %i = #lb(%i0) to #ub(%i0) step 2 {
        affine.for %j = 0 to 64 {
          %a = affine.load %A[%i, %j] : memref<64x64xf32>
          %b = arith.mulf %a, %c : f32
          affine.store %b, %B[%i, %j] : memref<64x64xf32>
          %a1 = affine.load %A[%i + 1, %j] : memref<64x64xf32>
          %b1 = arith.mulf %a1, %c : f32
          affine.store %b1, %B[%i + 1, %j] : memref<64x64xf32>
        }
      }
    }
    return
  }
}
