// Found by a random loop-program generator (fuzz9): MLIR 19's affine-super-vectorize
// vectorizes the innermost loop it can, which may be an outer one.
#map = affine_map<(d0) -> (d0 + 1)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0) -> (d0 + 4)>
module {
  func.func @kernel(%arg0: memref<20x29xf32>, %arg1: memref<28xf32>, %arg2: memref<10x12xf32>, %arg3: index) {
    %cst_2 = arith.constant 5.000000e-01 : f32
    affine.for %arg4 = 1 to 17 step 32 {
      affine.for %arg5 = 1 to 17 {
        affine.for %arg6 = #map1(%arg5) to #map2(%arg5) {
          affine.for %arg7 = 0 to 8 {
            %3 = affine.load %arg0[%arg5, %arg7] : memref<20x29xf32>
            %4 = affine.load %arg1[3] : memref<28xf32>
            %5 = arith.addf %3, %4 : f32
            %6 = arith.mulf %5, %cst_2 : f32
            affine.store %6, %arg1[%arg6] : memref<28xf32>
          }
        }
      }
    }
    return
  }
}

