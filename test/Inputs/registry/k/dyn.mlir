// Dynamic shapes: sizes come from --shape; %n is a size parameter from --arg.
func.func @scale_add(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %n: index, %alpha: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = memref.dim %a, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      %y = memref.load %b[%i, %j] : memref<?x?xf32>
      %m = arith.mulf %alpha, %x : f32
      %s = arith.addf %m, %y : f32
      memref.store %s, %b[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
