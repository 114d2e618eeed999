#map = affine_map<(d0) -> (d0)>
module attributes {llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "onnx-mlir.symbol-postfix" = "model"} {
  func.func @main_graph(%arg0: memref<16x32xf32> {onnx.name = "X"}, %arg1: memref<32x8xf32> {onnx.name = "W"}) -> (memref<16x8xf32> {onnx.name = "Y"}) attributes {llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 16 : i64} : memref<16x8xf32>
    affine.for %arg2 = 0 to 16 {
      affine.for %arg3 = 0 to 8 {
        %alloca = memref.alloca() : memref<f32>
        affine.store %cst, %alloca[] : memref<f32>
        affine.for %arg4 = 0 to 32 {
          %0 = affine.load %arg0[%arg2, %arg4] : memref<16x32xf32>
          %1 = affine.load %arg1[%arg4, %arg3] : memref<32x8xf32>
          %2 = affine.load %alloca[] : memref<f32>
          %3 = arith.mulf %0, %1 : f32
          %4 = arith.addf %2, %3 : f32
          affine.store %4, %alloca[] : memref<f32>
        }
        %5 = affine.load %alloca[] : memref<f32>
        %6 = arith.maxnumf %5, %cst : f32
        affine.store %6, %alloc[%arg2, %arg3] : memref<16x8xf32>
      }
    }
    return %alloc : memref<16x8xf32>
  }
}
