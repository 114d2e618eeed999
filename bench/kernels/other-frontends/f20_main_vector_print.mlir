module {
  func.func @kernel(%A: memref<8x8xf32>) {
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %p = arith.muli %ii, %jj : i32
        %f = arith.sitofp %p : i32 to f32
        affine.store %f, %A[%i, %j] : memref<8x8xf32>
      }
    }
    return
  }
  func.func @main() {
    %A = memref.alloc() : memref<8x8xf32>
    call @kernel(%A) : (memref<8x8xf32>) -> ()
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    affine.for %i = 0 to 8 {
      %v = vector.transfer_read %A[%i, %c0], %pad : memref<8x8xf32>, vector<8xf32>
      vector.print %v : vector<8xf32>
    }
    memref.dealloc %A : memref<8x8xf32>
    return
  }
}
