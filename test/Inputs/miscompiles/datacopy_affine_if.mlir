// Found by a sweep of other people's IR (MLIR 19, upstream bug): affine-data-copy-generate
// sizes its buffers by the accesses' ranges over the whole loop, ignoring the affine.if that
// guards them: it copies rows -1..64 of a 64x64 buffer (heap corruption, SIGABRT).
#set = affine_set<(d0, d1) : (d0 - 1 >= 0, -d0 + 62 >= 0, d1 - 1 >= 0, -d1 + 62 >= 0)>
func.func @stencil_if(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  %c4 = arith.constant 4.0 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.if #set(%i, %j) {
        %n = affine.load %A[%i - 1, %j] : memref<64x64xf32>
        %s = affine.load %A[%i + 1, %j] : memref<64x64xf32>
        %w = affine.load %A[%i, %j - 1] : memref<64x64xf32>
        %e = affine.load %A[%i, %j + 1] : memref<64x64xf32>
        %t0 = arith.addf %n, %s : f32
        %t1 = arith.addf %w, %e : f32
        %t2 = arith.addf %t0, %t1 : f32
        %t3 = arith.divf %t2, %c4 : f32
        affine.store %t3, %B[%i, %j] : memref<64x64xf32>
      } else {
        %v = affine.load %A[%i, %j] : memref<64x64xf32>
        affine.store %v, %B[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}
