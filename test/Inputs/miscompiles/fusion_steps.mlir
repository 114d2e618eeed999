// From llvm/llvm-project mlir/test/Dialect/Affine/loop-fusion-4.mlir (@check_src_dst_step), found by a sweep of
// upstream's tests (MLIR 19, upstream bug): the consumer steps by 2; affine-loop-fusion fuses the producer into it
// and removes the producer, so %m's odd elements are never written.
func.func @check_src_dst_step(%m : memref<100xf32>, %src: memref<100xf32>, %out: memref<100xf32>) {
  affine.for %i0 = 0 to 100 {
    %r1 = affine.load %src[%i0]: memref<100xf32>
    affine.store %r1, %m[%i0] : memref<100xf32>
  }
  affine.for %i2 = 0 to 100 step 2 {
    %r2 = affine.load %m[%i2] : memref<100xf32>
    affine.store %r2, %out[%i2] : memref<100xf32>
  }
  return
}
