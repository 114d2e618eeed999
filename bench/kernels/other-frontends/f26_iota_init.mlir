module {
  func.func @init_arrays(%A: memref<1024x1024xf64>, %x: memref<1024xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 1.024000e+03 : f64
    affine.for %i = 0 to 1024 {
      %0 = arith.index_cast %i : index to i32
      %1 = arith.sitofp %0 : i32 to f64
      %2 = arith.divf %1, %cst : f64
      affine.store %2, %x[%i] : memref<1024xf64>
      affine.for %j = 0 to 1024 {
        %3 = arith.index_cast %j : index to i32
        %4 = arith.muli %0, %3 : i32
        %5 = arith.sitofp %4 : i32 to f64
        %6 = arith.divf %5, %cst : f64
        affine.store %6, %A[%i, %j] : memref<1024x1024xf64>
      }
    }
    return
  }
}
