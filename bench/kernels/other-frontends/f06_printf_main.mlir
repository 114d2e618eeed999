module attributes {llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  llvm.mlir.global internal constant @str0("%f\0A\00") {addr_space = 0 : i32}
  llvm.func @printf(!llvm.ptr, ...) -> i32
  func.func @init(%a: memref<16xf64>) {
    affine.for %i = 0 to 16 {
      %0 = arith.index_cast %i : index to i64
      %1 = arith.sitofp %0 : i64 to f64
      affine.store %1, %a[%i] : memref<16xf64>
    }
    return
  }
  func.func @main() -> i32 attributes {llvm.linkage = #llvm.linkage<external>} {
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 0.0 : f64
    %a = memref.alloca() : memref<16xf64>
    call @init(%a) : (memref<16xf64>) -> ()
    %s = affine.for %i = 0 to 16 iter_args(%acc = %cst) -> (f64) {
      %v = affine.load %a[%i] : memref<16xf64>
      %n = arith.addf %acc, %v : f64
      affine.yield %n : f64
    }
    %0 = llvm.mlir.addressof @str0 : !llvm.ptr
    %1 = llvm.getelementptr %0[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i8>
    %2 = llvm.call @printf(%1, %s) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32
    return %c0_i32 : i32
  }
}
