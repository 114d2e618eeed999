// An entry that returns its argument: it does nothing, but what it returns is
// not a constant.
func.func @ident(%x: i32) -> i32 {
  return %x : i32
}
