// A 10-deep nest reading at the sum of its counters: upstream's dependence
// analysis ran out of memory on it (which ended the process, and a server).
func.func @main(%A: memref<20xf32>) {
  affine.for %i0 = 0 to 2 {
    affine.for %i1 = 0 to 2 {
      affine.for %i2 = 0 to 2 {
        affine.for %i3 = 0 to 2 {
          affine.for %i4 = 0 to 2 {
            affine.for %i5 = 0 to 2 {
              affine.for %i6 = 0 to 2 {
                affine.for %i7 = 0 to 2 {
                  affine.for %i8 = 0 to 2 {
                    affine.for %i9 = 0 to 2 {
                      %v = affine.load %A[%i0 + %i1 + %i2 + %i3 + %i4 + %i5 + %i6 + %i7 + %i8 + %i9] : memref<20xf32>
                      %w = arith.addf %v, %v : f32
                      affine.store %w, %A[%i0] : memref<20xf32>
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return
}
