// Indices with floordiv and mod (as Accera's affine tests write them): the
// values they reach are counted, so @oob_mod's store is caught at index 8,
// and @in_bounds, whose largest index is 7, runs.
func.func @oob_mod(%a: memref<8xf32>, %b: memref<8xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %v = affine.load %a[%j floordiv 2] : memref<8xf32>
      affine.store %v, %b[(%i + %j) mod 9] : memref<8xf32>
    }
  }
  return
}

func.func @in_bounds(%a: memref<8xf32>, %b: memref<8xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 step 3 {
      %v = affine.load %a[%j floordiv 2] : memref<8xf32>
      affine.store %v, %b[(%i + %j) mod 8] : memref<8xf32>
      affine.store %v, %b[%j floordiv 2] : memref<8xf32>
      affine.store %v, %b[(%i * 7 + 1) ceildiv 16] : memref<8xf32>
    }
  }
  return
}
