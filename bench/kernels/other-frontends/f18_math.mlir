module {
  func.func @norm(%x: memref<100xf32>, %y: memref<100xf32>, %p: f32) {
    affine.for %i = 0 to 100 {
      %a = affine.load %x[%i] : memref<100xf32>
      %b = math.absf %a : f32
      %c = math.powf %b, %p : f32
      %d = math.sqrt %c : f32
      %e = math.exp %d : f32
      %f = math.log1p %e : f32
      affine.store %f, %y[%i] : memref<100xf32>
    }
    return
  }
}
