// Found by a random search over mqss's actions (MLIR 19, upstream bug):
// affine-data-copy-generate sizes its buffers without the loop step (a tiled, step-2 loop): its copy-out loop runs past the 64 elements.
func.func @pairs(%out: memref<64xf64>) {
  %a = arith.constant 1.0 : f64
  %b = arith.constant 2.0 : f64
  affine.for %ii = 0 to 64 step 32 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to affine_map<(d0) -> (d0 + 32)>(%ii) step 2 {
      affine.store %a, %out[%i] : memref<64xf64>
      affine.store %b, %out[%i + 1] : memref<64xf64>
    }
  }
  return
}
