// A loop whose bounds and step are arguments: `mqss run` defaults an index
// argument not given with --arg to 0, and a step of 0 never ends.
func.func @accumulate(%lb: index, %ub: index, %step: index, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %lb to %ub step %step {
    %v = memref.load %out[%c0] : memref<1xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %out[%c0] : memref<1xf32>
  }
  return
}
