// A max-reduction read by a matmul, as linalg.to-affine lowers them: MLIR
// 19's affine-loop-fusion fuses the reduction (and the fill before it) whole
// into the matmul's innermost loop and recomputes it there, 64^3 times.
func.func @main(%x: memref<64x64x64xf32>, %out: memref<64x64xf32>) {
  %ninf = arith.constant -3.4e38 : f32
  %m = memref.alloc() : memref<64x64xf32>
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.store %ninf, %m[%i, %j] : memref<64x64xf32>
    }
  }
  affine.for %r = 0 to 64 {
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {
        %a = affine.load %x[%r, %i, %j] : memref<64x64x64xf32>
        %b = affine.load %m[%i, %j] : memref<64x64xf32>
        %c = arith.maximumf %a, %b : f32
        affine.store %c, %m[%i, %j] : memref<64x64xf32>
      }
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 64 {
        %a = affine.load %m[%i, %k] : memref<64x64xf32>
        %b = affine.load %m[%k, %j] : memref<64x64xf32>
        %c = affine.load %out[%i, %j] : memref<64x64xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %out[%i, %j] : memref<64x64xf32>
      }
    }
  }
  memref.dealloc %m : memref<64x64xf32>
  return
}
