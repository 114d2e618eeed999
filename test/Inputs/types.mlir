// Every element type the harness synthesises, plus integer and float scalars.
func.func @types(%h: memref<8xf16>, %i8: memref<8xi8>, %b: memref<8xi1>,
                 %ix: memref<8xindex>, %l: memref<8xi64>, %w: memref<8xi32>,
                 %d: memref<8xf64>, %n: i32, %s: f64, %out: memref<8xf64>) {
  affine.for %i = 0 to 8 {
    %hv = affine.load %h[%i] : memref<8xf16>
    %hf = arith.extf %hv : f16 to f64
    %bv = affine.load %b[%i] : memref<8xi1>
    %iv = affine.load %i8[%i] : memref<8xi8>
    %if = arith.sitofp %iv : i8 to f64
    %xv = affine.load %ix[%i] : memref<8xindex>
    %x64 = arith.index_cast %xv : index to i64
    %lv = affine.load %l[%i] : memref<8xi64>
    %sum64 = arith.addi %x64, %lv : i64
    %lf = arith.sitofp %sum64 : i64 to f64
    %wv = affine.load %w[%i] : memref<8xi32>
    %wn = arith.addi %wv, %n : i32
    %wf = arith.sitofp %wn : i32 to f64
    %dv = affine.load %d[%i] : memref<8xf64>
    %a0 = arith.addf %hf, %if : f64
    %a1 = arith.select %bv, %a0, %lf : f64
    %a2 = arith.addf %a1, %wf : f64
    %a3 = arith.mulf %dv, %s : f64
    %a4 = arith.addf %a2, %a3 : f64
    affine.store %a4, %out[%i] : memref<8xf64>
    %doubled = arith.addi %wv, %wv : i32
    affine.store %doubled, %w[%i] : memref<8xi32>
  }
  return
}
