// Reduced from llvm/llvm-project mlir/test/Dialect/Affine/affine-data-copy.mlir (@affine_parallel), found by a
// sweep of upstream's tests (MLIR 19, upstream bug): on an access through floordiv/mod, affine-data-copy-generate
// emits its copy loop as `affine.for ... = max #map() to min #map()` (no bounds): it copies nothing, and
// lower-affine crashes on it.
func.func @f(%85: memref<2x5x4x2xi64>, %out: memref<80xi64>) {
  affine.for %arg3 = 0 to 80 {
    affine.for %z = 0 to 1 {
      %105 = affine.load %85[((%arg3 floordiv 2) floordiv 4) floordiv 5, ((%arg3 floordiv 2) floordiv 4) mod 5, (%arg3 floordiv 2) mod 4, %arg3 mod 2] : memref<2x5x4x2xi64>
      affine.store %105, %out[%arg3] : memref<80xi64>
    }
  }
  return
}
