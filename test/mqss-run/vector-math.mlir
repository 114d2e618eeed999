// Vectorised math that has no LLVM intrinsic (tanh, erf) becomes libm calls
// on unrolled vector elements; that must happen before the vector dialect is
// lowered, or translation meets a leftover vector.extract.
// RUN: %mqss run %s --pipeline='func.func(affine-super-vectorize{virtual-vector-size=8})' \
// RUN:   --reps=1 --min-time-ms=0 --json | FileCheck %s
// CHECK: "check": "pass"
// CHECK: "resolved_pipeline": "func.func(affine-super-vectorize{virtual-vector-size=8})"
// CHECK: "status": "ok"
func.func @gelu_like(%x: memref<256xf32>, %y: memref<256xf32>) {
  %half = arith.constant 0.5 : f32
  affine.for %i = 0 to 256 {
    %v = affine.load %x[%i] : memref<256xf32>
    %t = math.tanh %v : f32
    %e = math.erf %v : f32
    %s = arith.addf %t, %e : f32
    %m = arith.mulf %s, %half : f32
    affine.store %m, %y[%i] : memref<256xf32>
  }
  return
}
