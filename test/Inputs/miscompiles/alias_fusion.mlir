// Nest 2 reads %m through a memref.cast: affine-loop-fusion saw no
// dependence on nest 1 and fused the read before the write.
func.func @main(%a: memref<16xf32>, %m: memref<16xf32>, %b: memref<16xf32>) {
  %alias = memref.cast %m : memref<16xf32> to memref<?xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    affine.store %x, %m[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %y = affine.load %alias[15 - %i] : memref<?xf32>
    %x = affine.load %a[%i] : memref<16xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %b[%i] : memref<16xf32>
  }
  return
}
