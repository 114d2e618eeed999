// Found by a random loop-program generator (fuzz9).
// Valid program (%c is leaked, not freed). affine-loop-fusion fuses nest 2 (reads %t) into nest 3,
// i.e. past 'memref.dealloc %t': a use after free (wrong output / garbage).
func.func @kernel(%A: memref<16xf32>, %B: memref<16xf32>, %C: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %A[%i] : memref<16xf32>
    affine.store %v, %t[%i] : memref<16xf32>
  }
  %c = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %t[%i] : memref<16xf32>
    affine.store %v, %c[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %c[%i] : memref<16xf32>
    %w = affine.load %B[%i] : memref<16xf32>
    %s = arith.subf %v, %w : f32
    affine.store %s, %C[%i] : memref<16xf32>
  }
  return
}
