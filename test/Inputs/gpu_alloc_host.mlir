// Host code that allocates device memory through the GPU runtime (from
// upstream's affine scalrep test): no kernel, but nothing to link on a CPU.
func.func @multi_store_load() {
  %cf7 = arith.constant 7.0 : f32
  %m = gpu.alloc() : memref<10xf32>
  affine.for %i0 = 0 to 10 {
    affine.store %cf7, %m[%i0] : memref<10xf32>
  }
  gpu.dealloc %m : memref<10xf32>
  return
}
