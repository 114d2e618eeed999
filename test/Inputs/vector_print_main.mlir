// In the style of MLIR's integration tests: @main builds its data, times
// itself with rtclock and prints through vector.print and printMemrefF32.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func private @rtclock() -> f64

func.func @saxpy(%a: f32, %x: memref<16xf32>, %y: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %xv = affine.load %x[%i] : memref<16xf32>
    %yv = affine.load %y[%i] : memref<16xf32>
    %p = arith.mulf %a, %xv : f32
    %s = arith.addf %p, %yv : f32
    affine.store %s, %y[%i] : memref<16xf32>
  }
  return
}

func.func @main() {
  %x = memref.alloc() : memref<16xf32>
  %y = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    affine.store %f, %x[%i] : memref<16xf32>
    affine.store %f, %y[%i] : memref<16xf32>
  }
  %a = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %t0 = call @rtclock() : () -> f64
  call @saxpy(%a, %x, %y) : (f32, memref<16xf32>, memref<16xf32>) -> ()
  %t1 = call @rtclock() : () -> f64
  %v = vector.transfer_read %y[%c0], %a : memref<16xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  %u = memref.cast %y : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<16xf32>
  memref.dealloc %y : memref<16xf32>
  return
}
