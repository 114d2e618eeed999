// A producer and a consumer nest that affine-loop-fusion fuses correctly: unit steps, and no buffer updated in
// place that the other nest uses.
func.func @f(%src: memref<64xf32>, %tmp: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %a = affine.load %src[%i] : memref<64xf32>
    %b = arith.mulf %a, %two : f32
    affine.store %b, %tmp[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %a = affine.load %tmp[%i] : memref<64xf32>
    %b = arith.addf %a, %two : f32
    affine.store %b, %out[%i] : memref<64xf32>
  }
  return
}
