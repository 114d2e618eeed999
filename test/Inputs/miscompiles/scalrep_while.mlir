// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// affine-scalrep inside scf.while: the forwarded store makes the loop endless.
func.func @count(%out: memref<1xi32>) {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %ten = arith.constant 10 : i32
  %buf = memref.alloca() : memref<1xi32>
  affine.store %z, %buf[0] : memref<1xi32>
  scf.while : () -> () {
    %v = affine.load %buf[0] : memref<1xi32>
    %c = arith.cmpi slt, %v, %ten : i32
    scf.condition(%c)
  } do {
    %v = affine.load %buf[0] : memref<1xi32>
    %w = arith.addi %v, %one : i32
    affine.store %w, %buf[0] : memref<1xi32>
    scf.yield
  }
  %r = affine.load %buf[0] : memref<1xi32>
  affine.store %r, %out[0] : memref<1xi32>
  return
}
