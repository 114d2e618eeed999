// The functions sit in a nested module, as some frontends emit them.
module {
  module @inner {
    func.func @f(%a: memref<16xf32>) {
      affine.for %i = 0 to 16 {
        %v = affine.load %a[%i] : memref<16xf32>
        %w = arith.addf %v, %v : f32
        affine.store %w, %a[%i] : memref<16xf32>
      }
      return
    }
  }
}
