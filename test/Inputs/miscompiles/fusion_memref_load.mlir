// Nest 2 reads %m with memref.load (not affine): affine-loop-fusion saw no
// producer-consumer edge.
func.func @main(%a: memref<16xf32>, %m: memref<16xf32>, %b: memref<16xf32>) {
  %c15 = arith.constant 15 : index
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    affine.store %x, %m[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %k = arith.subi %c15, %i : index
    %y = memref.load %m[%k] : memref<16xf32>
    %x = affine.load %a[%i] : memref<16xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %b[%i] : memref<16xf32>
  }
  return
}
