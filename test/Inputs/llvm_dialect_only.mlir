// A kernel already lowered to the LLVM dialect: no pass pipeline is left to choose.
llvm.func @add(%a: i32, %b: i32) -> i32 {
  %0 = llvm.add %a, %b : i32
  llvm.return %0 : i32
}
