// A function at the top level and one in a nested module: a selection of the
// outer module decides the first and leaves the second, and says so.
module {
  func.func @top(%a: memref<16xf32>) {
    affine.for %i = 0 to 16 {
      %v = affine.load %a[%i] : memref<16xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %a[%i] : memref<16xf32>
    }
    return
  }
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
