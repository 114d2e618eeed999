module {
  func.func @vadd(%A: memref<256xf32>, %B: memref<256xf32>, %C: memref<256xf32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %pad = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c256 step %c8 {
      %a = vector.transfer_read %A[%i], %pad {in_bounds = [true]} : memref<256xf32>, vector<8xf32>
      %b = vector.transfer_read %B[%i], %pad {in_bounds = [true]} : memref<256xf32>, vector<8xf32>
      %c = arith.addf %a, %b : vector<8xf32>
      vector.transfer_write %c, %C[%i] {in_bounds = [true]} : vector<8xf32>, memref<256xf32>
    }
    return
  }
}
