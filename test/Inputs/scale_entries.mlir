// Two public functions over one dynamically sized buffer: @once scales it
// once, @repeated %n times. Which one runs is said with --entry. Both have
// C interfaces, as many frontends emit them, so lowering the module makes
// the same code whichever runs.
func.func @once(%a: memref<?xf32>, %n: index, %s: f32) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  scf.for %j = %c0 to %d step %c1 {
    %x = memref.load %a[%j] : memref<?xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %a[%j] : memref<?xf32>
  }
  return
}

func.func @repeated(%a: memref<?xf32>, %n: index, %s: f32) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    func.call @once(%a, %n, %s) : (memref<?xf32>, index, f32) -> ()
  }
  return
}
