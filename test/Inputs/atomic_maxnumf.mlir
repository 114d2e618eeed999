// memref.atomic_rmw maxnumf: MLIR 19's lowering to LLVM leaves it (only
// maximumf and the others have a pattern), and the translation blamed an
// unrealized_conversion_cast at a function argument.
func.func @f(%F: memref<10xf32>, %f: f32, %i: index) -> f32 {
  %a = memref.atomic_rmw maxnumf %f, %F[%i] : (f32, memref<10xf32>) -> f32
  return %a : f32
}
