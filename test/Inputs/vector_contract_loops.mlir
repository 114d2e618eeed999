// A 256x256x256 matmul already vectorized into 8x32x1 vector.contract ops in
// loops (as a frontend that vectorizes itself emits it): 2^24 multiply-adds.
#lhs = affine_map<(i, j, k) -> (i, k)>
#rhs = affine_map<(i, j, k) -> (k, j)>
#acc = affine_map<(i, j, k) -> (i, j)>
func.func @matmul(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  %pad = arith.constant 0.0 : f32
  affine.for %i = 0 to 256 step 8 {
    affine.for %j = 0 to 256 step 32 {
      affine.for %k = 0 to 256 {
        %l = vector.transfer_read %a[%i, %k], %pad {in_bounds = [true, true]} : memref<256x256xf32>, vector<8x1xf32>
        %r = vector.transfer_read %b[%k, %j], %pad {in_bounds = [true, true]} : memref<256x256xf32>, vector<1x32xf32>
        %o = vector.transfer_read %c[%i, %j], %pad {in_bounds = [true, true]} : memref<256x256xf32>, vector<8x32xf32>
        %s = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %l, %r, %o : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
        vector.transfer_write %s, %c[%i, %j] {in_bounds = [true, true]} : vector<8x32xf32>, memref<256x256xf32>
      }
    }
  }
  return
}
