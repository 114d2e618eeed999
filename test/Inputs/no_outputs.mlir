// Takes a scalar and has no observable effect.
func.func @noop(%x: f32) {
  return
}
