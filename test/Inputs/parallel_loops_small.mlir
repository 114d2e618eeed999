// Small kernels in parallel loops and in already tiled loops, as other frontends emit them (affine.parallel from
// upstream's affine-data-copy.mlir, scf.parallel from convert-linalg-to-parallel-loops, scf.forall from tiling,
// and an affine nest tiled by 8 whose inner bounds are the tile's): each executes a static number of ops.
#lb = affine_map<(d0) -> (d0)>
#ub = affine_map<(d0) -> (d0 + 8)>
func.func @affine_par(%m: memref<5x4xf32>) {
  %one = arith.constant 1.0 : f32
  affine.parallel (%i, %j) = (0, 0) to (5, 4) {
    %v = affine.load %m[%i, %j] : memref<5x4xf32>
    %w = arith.addf %v, %one : f32
    affine.store %w, %m[%i, %j] : memref<5x4xf32>
  }
  return
}
func.func @scf_par(%m: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c8) step (%c1, %c1) {
    %v = memref.load %m[%i, %j] : memref<16x8xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %m[%i, %j] : memref<16x8xf32>
    scf.reduce
  }
  return
}
func.func @forall(%m: memref<32xf32>) {
  %one = arith.constant 1.0 : f32
  scf.forall (%i) in (32) {
    %v = memref.load %m[%i] : memref<32xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %m[%i] : memref<32xf32>
  }
  return
}
func.func @tiled(%m: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %t = 0 to 64 step 8 {
    affine.for %i = #lb(%t) to #ub(%t) {
      %v = affine.load %m[%i] : memref<64xf32>
      %w = arith.addf %v, %one : f32
      affine.store %w, %m[%i] : memref<64xf32>
    }
  }
  return
}
