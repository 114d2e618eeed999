// A cf.assert that fails under some inputs (torch-mlir emits them): its message is printed
// before abort(), and the report must say it.
func.func @f(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oge, %x, %zero : f32
  cf.assert %ok, "x must be non-negative"
  %r = math.sqrt %x : f32
  return %r : f32
}
