module {
  func.func @clamp_loop(%x: memref<64xf32>, %lo: f32, %hi: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    cf.br ^header(%c0 : index)
  ^header(%i: index):
    %cond = arith.cmpi slt, %i, %c64 : index
    cf.cond_br %cond, ^body, ^exit
  ^body:
    %v = memref.load %x[%i] : memref<64xf32>
    %islo = arith.cmpf olt, %v, %lo : f32
    cf.cond_br %islo, ^setlo, ^checkhi
  ^setlo:
    memref.store %lo, %x[%i] : memref<64xf32>
    cf.br ^latch
  ^checkhi:
    %ishi = arith.cmpf ogt, %v, %hi : f32
    cf.cond_br %ishi, ^sethi, ^latch
  ^sethi:
    memref.store %hi, %x[%i] : memref<64xf32>
    cf.br ^latch
  ^latch:
    %n = arith.addi %i, %c1 : index
    cf.br ^header(%n : index)
  ^exit:
    return
  }
}
